import type { ShownFile } from "./grep.ts"
import { cutLongLine } from "./long-line.ts"
import { counted } from "../protocol/plural.ts"
import type { LineText } from "./search-types.ts"

/** The context lines used (at most `max`, tools.grep.max_context), and what the text says when fewer than asked. */
export const cappedContext = ([before, after]: readonly [number, number], max: number): { before: number; after: number; capNote: string | undefined } => {
  const asked = before === after ? `context ${before}` : `before_context ${before}, after_context ${after}`
  const capNote = before > max || after > max ? `(${asked} capped at ${max} lines (tools.grep.max_context); Read a match's surroundings for more.)` : undefined
  return { before: Math.min(before, max), after: Math.min(after, max), capNote }
}

/** One matching line as results list it (context lines only when asked for). */
export interface MatchEntry {
  readonly file: string
  readonly line: number
  readonly text: string
  readonly before_context?: ReadonlyArray<LineText>
  readonly after_context?: ReadonlyArray<LineText>
}

/**
 * The matching lines of the files shown, at most `maxMatches`, long lines cut
 * around the match: as entries and as text lines grouped by file as ripgrep
 * prints them (a file header, `N: text` for a match, `N- text` for context,
 * `--` between blocks that do not touch), the path said once per file
 * (with its count of matching lines when asked).
 */
export const matchLines = (
  files: ReadonlyArray<ShownFile>,
  options: {
    readonly maxMatches: number
    readonly before: number
    readonly after: number
    readonly maxLineLength: number
    /**
     * The saved complete list: each file's header says how many lines of it match ("src/a.ts (12 matches)"),
     * a file whose lines were not all kept ends with how many more there are and how to see them.
     */
    readonly countsInHeaders?: boolean
  },
): { readonly matches: ReadonlyArray<MatchEntry>; readonly lines: ReadonlyArray<string> } => {
  const cut = (text: string, column: number, line?: number) => cutLongLine(text, column, options.maxLineLength, line)
  const cutContext = (lines: ReadonlyArray<LineText>) => lines.map((l) => ({ line: l.line, text: cut(l.text, 0, l.line) }))
  const withContext = options.before > 0 || options.after > 0
  const matches: Array<MatchEntry> = []
  const bodyLines: Array<string> = []
  for (const s of files) {
    if (matches.length >= options.maxMatches) break
    let lastLine = -1
    let fileHeader = false
    const taken = s.f.lines.slice(0, options.maxMatches - matches.length)
    // A match inside another's context is still a match (`N:`), as ripgrep prints it, not a context line.
    const matchTexts = new Map(taken.map((m) => [m.line, cut(m.text, m.column, m.line)] as const))
    for (const m of taken) {
      const text = matchTexts.get(m.line)!
      matches.push({
        file: s.display,
        line: m.line,
        text,
        ...(withContext ? { before_context: cutContext(m.before), after_context: cutContext(m.after) } : {}),
      })
      if (!fileHeader) {
        bodyLines.push(options.countsInHeaders ? `${s.display} (${counted(s.f.matchedLines, "match", "matches")})` : s.display)
        fileHeader = true
      }
      if (!withContext) {
        bodyLines.push(`  ${m.line}: ${text}`)
        continue
      }
      const block = [...m.before.map((l) => ({ ...l, match: false })), { line: m.line, text: m.text, match: true }, ...m.after.map((l) => ({ ...l, match: false }))]
      for (const l of block) {
        if (l.line <= lastLine) continue
        if (lastLine !== -1 && l.line > lastLine + 1) bodyLines.push("  --")
        const matched = l.match ? text : matchTexts.get(l.line)
        bodyLines.push(matched !== undefined ? `  ${l.line}: ${matched}` : `  ${l.line}- ${cut(l.text, 0, l.line)}`)
        lastLine = l.line
      }
    }
    if (options.countsInHeaders && s.f.lines.length < s.f.matchedLines) {
      if (!fileHeader) bodyLines.push(`${s.display} (${counted(s.f.matchedLines, "match", "matches")})`)
      const more = s.f.matchedLines - s.f.lines.length
      bodyLines.push(`  … ${counted(more, "more matching line", "more matching lines")} not kept here: Grep with path "${s.display}" saves them all`)
    }
  }
  return { matches, lines: bodyLines }
}
