import type { Style } from "./style.ts"

/**
 * Markdown for a terminal, a line at a time so a streamed answer can be shown
 * as it arrives: headings bold, lists with bullets, quotes marked, fenced
 * code coloured, inline `code`, **bold**, *italic* and [links](url). With a
 * plain style (no colour: piped output, NO_COLOR) the text stays as written.
 */
export const markdownLines = (style: Style): ((line: string) => string) => {
  if (style.level === 0) return (line) => line
  let fence: string | undefined
  const inline = (text: string): string =>
    text
      .split(/(`[^`]+`)/)
      .map((part) =>
        part.startsWith("`") && part.endsWith("`") && part.length > 1
          ? style.cyan(part.slice(1, -1))
          : part
              .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a, b) => style.bold(a ?? b))
              .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)|(^|[^\w_])_([^_\s][^_]*)_(?!\w)/g, (_, p1, a, p2, b) => `${p1 ?? p2}${style.italic(a ?? b)}`)
              .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t, u) => `${style.underline(t)}${style.dim(` (${u})`)}`),
      )
      .join("")
  return (line) => {
    const fenceMark = /^\s*(```|~~~)/.exec(line)
    if (fence !== undefined) {
      if (fenceMark && fenceMark[1] === fence) {
        fence = undefined
        return style.dim(line)
      }
      return style.yellow(line)
    }
    if (fenceMark) {
      fence = fenceMark[1]
      return style.dim(line)
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading) return heading[1]!.length <= 2 ? style.bold.underline(inline(heading[2]!)) : style.bold(inline(heading[2]!))
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return style.dim("─".repeat(40))
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
    if (bullet) return `${bullet[1]}${style.cyan("•")} ${inline(bullet[2]!)}`
    const quote = /^\s*>\s?(.*)$/.exec(line)
    if (quote) return `${style.dim("│")} ${style.italic(inline(quote[1]!))}`
    return inline(line)
  }
}

/** Renders a whole Markdown text (a final answer). */
export const renderMarkdown = (text: string, style: Style): string => text.split("\n").map(markdownLines(style)).join("\n")

/** A stream of Markdown text rendered line by line as it arrives; `end` renders what is left of the last line. */
export const markdownStream = (style: Style, write: (text: string) => void) => {
  const render = markdownLines(style)
  let pending = ""
  return {
    push: (text: string) => {
      pending += text
      let nl = pending.indexOf("\n")
      while (nl >= 0) {
        write(`${render(pending.slice(0, nl))}\n`)
        pending = pending.slice(nl + 1)
        nl = pending.indexOf("\n")
      }
    },
    end: () => {
      if (pending !== "") write(render(pending))
      pending = ""
    },
  }
}
