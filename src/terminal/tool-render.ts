import type { Envelope } from "../protocol/envelope.ts"
import type { Style } from "./style.ts"
import { visibleText } from "./visible-text.ts"

/** The header of a result: its first line without "# " ("Read: app/main.py", "Bash Error"). */
export const headerOf = (envelope: Envelope): string => {
  const first = envelope.text.split("\n", 1)[0] ?? ""
  return visibleText(first.replace(/^#\s*/, ""))
}

/** The body of a result: what follows the header line. */
export const bodyOf = (envelope: Envelope): string => visibleText(envelope.text.split("\n").slice(1).join("\n").replace(/^\n+/, "").trimEnd())

/** One line summing a result up. */
export const summaryLine = (envelope: Envelope, style: Style, elapsedMs?: number): string => {
  const mark = envelope.status === "success" ? style.green("✓") : envelope.status === "partial" ? style.yellow("◐") : style.red("✗")
  const header = headerOf(envelope)
  const detail =
    envelope.status === "error"
      ? ` ${style.red(`${envelope.error?.code ?? "ERROR"}: ${visibleText(envelope.error?.message ?? "")}`)}`
      : typeof envelope.data.additions === "number" || typeof envelope.data.deletions === "number"
        ? ` ${style.green(`+${Number(envelope.data.additions ?? 0)}`)} ${style.red(`-${Number(envelope.data.deletions ?? 0)}`)}`
        : ""
  const time = elapsedMs !== undefined && elapsedMs >= 1000 ? style.dim(` (${(elapsedMs / 1000).toFixed(1)}s)`) : ""
  return `${mark} ${style.bold(header)}${detail}${time}`
}

/** Colours a unified diff: additions green, deletions red, hunks cyan. */
export const colorDiff = (diff: string, style: Style): string =>
  diff
    .split("\n")
    .map((l) =>
      l.startsWith("+++") || l.startsWith("---")
        ? style.bold(l)
        : l.startsWith("@@")
          ? style.cyan(l)
          : l.startsWith("+")
            ? style.green(l)
            : l.startsWith("-")
              ? style.red(l)
              : l,
    )
    .join("\n")

/**
 * What the terminal shows under the summary: the diff for file changes, the
 * body otherwise, cut to `maxLines` (the model saw the whole text; the
 * session file keeps the envelope).
 */
export const detailBlock = (envelope: Envelope, style: Style, maxLines = 12): string => {
  if (envelope.status === "error") return ""
  const diff = typeof envelope.data.diff === "string" && envelope.data.diff !== "" ? visibleText(envelope.data.diff) : undefined
  const text = diff ?? bodyOf(envelope)
  if (text.trim() === "") return ""
  const lines = text.split("\n")
  const shown = lines.slice(0, maxLines)
  const more = lines.length > maxLines ? `\n${style.dim(`  … ${lines.length - maxLines} more lines`)}` : ""
  const rendered = diff ? colorDiff(shown.join("\n"), style) : style.dim(shown.join("\n"))
  return `${rendered
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n")}${more}`
}

/** A call as the user sees it: `bash  npm test`, `read  src/a.ts` (what the terminal would act on shown instead). */
export const describeCall = (name: string, input: unknown): string => visibleText(callLine(name, input))

const callLine = (name: string, input: unknown): string => {
  if (typeof input !== "object" || input === null) return `${name} ${String(input ?? "")}`.trim()
  const o = input as Record<string, unknown>
  const main = o.command ?? o.path ?? o.file_path ?? o.pattern ?? o.url ?? o.objective ?? o.expression ?? o.query
  if (typeof main === "string") return `${name} ${main.length > 120 ? `${main.slice(0, 120)}…` : main}`
  const json = JSON.stringify(input)
  return `${name} ${json.length > 120 ? `${json.slice(0, 120)}…` : json}`
}
