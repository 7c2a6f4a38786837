import { closestRegions, renderRegion } from "./closest.ts"
import { findMatches, STRATEGY_DESCRIPTIONS, type MatchRange, type MatchStrategy } from "./match.ts"
import { eolString, lfView, withEol, type EolStyle } from "./text-encoding.ts"

/** One replacement as the edit and multiedit tools take it. */
export interface EditSpec {
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean | undefined
}

/** What one edit did to the text. */
export interface AppliedEdit {
  /** The whole text after the edit (same line-ending conventions as before). */
  readonly text: string
  readonly replacements: number
  readonly strategy: MatchStrategy
  /** 1-based lines (in the text before this edit) where each replacement started; at most 20 listed. */
  readonly lines: ReadonlyArray<number>
  /** First and last line of the first replaced region, before the edit. */
  readonly startLine: number
  readonly endLine: number
}

/** Why an edit could not be placed, ready for an INVALID_PARAM error. */
export interface EditFailure {
  readonly kind: "not_found" | "ambiguous"
  readonly message: string
  /** The candidate regions with line numbers (error details). */
  readonly details: string
  /** Line of the best candidate, for a Read hint. */
  readonly line?: number
}

export type ApplyOutcome = { readonly ok: true; readonly value: AppliedEdit } | { readonly ok: false; readonly failure: EditFailure }

/** The line break new text takes where it replaces `region` at `end` in `text`: the region's own, else its line's, else the file's. */
const eolFor = (text: string, region: string, end: number, style: EolStyle): "\n" | "\r\n" => {
  if (region.includes("\r\n")) return "\r\n"
  if (region.includes("\n")) return "\n"
  const next = text.indexOf("\n", end)
  if (next !== -1) return next > 0 && text.charCodeAt(next - 1) === 13 ? "\r\n" : "\n"
  return eolString(style, text)
}

/**
 * New text for a region whose lines end both ways (a mixed file): its n-th line break takes the n-th break of the
 * region, the ones past them the region's last, so a line the edit keeps keeps its own ending.
 */
const withRegionEols = (lf: string, region: string): string => {
  const breaks = region.match(/\r?\n/g) ?? []
  let i = 0
  return lf.replace(/\n/g, () => breaks[Math.min(i++, breaks.length - 1)]!)
}

const MAX_SHOWN = 5

/**
 * Applies one edit to a decoded text. old_string and new_string may be given
 * with LF or CRLF line breaks: matching is done on an LF view, and the new text
 * takes the line breaks of the region it replaces, so a CRLF (or mixed) file
 * keeps its endings and nothing outside the replaced regions changes.
 */
export const applyEdit = (text: string, eol: EolStyle, edit: EditSpec, where = "the file"): ApplyOutcome => {
  const view = lfView(text)
  const oldLf = withEol(edit.old_string, "\n")
  const newLf = withEol(edit.new_string, "\n")
  const result = findMatches(view.text, oldLf, { replaceAll: edit.replace_all === true })
  if (result.kind === "found") {
    const parts: Array<string> = []
    let last = 0
    for (const range of result.ranges) {
      const start = view.toOriginal(range.start)
      const end = view.toOriginal(range.end)
      const region = text.slice(start, end)
      const adapted = result.adapt(newLf)
      parts.push(text.slice(last, start), region.includes("\r\n") && /(^|[^\r])\n/.test(region) ? withRegionEols(adapted, region) : withEol(adapted, eolFor(text, region, end, eol)))
      last = end
    }
    parts.push(text.slice(last))
    const first = result.ranges[0]!
    return {
      ok: true,
      value: {
        text: parts.join(""),
        replacements: result.ranges.length,
        strategy: result.strategy,
        lines: result.ranges.slice(0, 20).map((r) => r.startLine),
        startLine: first.startLine,
        endLine: first.endLine,
      },
    }
  }
  const fileLines = view.text.split("\n")
  if (fileLines.length > 1 && fileLines[fileLines.length - 1] === "") fileLines.pop()
  if (result.kind === "ambiguous") return { ok: false, failure: ambiguous(fileLines, result.strategy, result.ranges, result.total, where) }
  return { ok: false, failure: notFound(fileLines, oldLf, where) }
}

const ambiguous = (
  fileLines: ReadonlyArray<string>,
  strategy: MatchStrategy,
  ranges: ReadonlyArray<MatchRange>,
  total: number,
  where: string,
): EditFailure => {
  const lines = ranges.map((r) => r.startLine)
  const listed = lines.slice(0, 10).join(", ") + (total > 10 ? `, … (${total} in all)` : "")
  const how = strategy === "exact" ? "" : ` (no exact match; ${total} places match by ${strategy}: ${STRATEGY_DESCRIPTIONS[strategy]})`
  const message =
    `old_string matches ${total} places in ${where}${how}, at lines ${listed}. ` +
    `Add surrounding lines to old_string so it matches exactly one place${strategy === "exact" ? ", or set replace_all to change every occurrence" : ""}.`
  const shown = ranges.slice(0, MAX_SHOWN).map((r, i) => `Match ${i + 1} (${span(r.startLine, r.endLine)}):\n${renderRegion(fileLines, r.startLine, r.endLine, { context: 1, maxLines: 12 })}`)
  const more = total > MAX_SHOWN ? `\n\n(${total - MAX_SHOWN} more not shown)` : ""
  return { kind: "ambiguous", message, details: shown.join("\n\n") + more, line: lines[0]! }
}

const notFound = (fileLines: ReadonlyArray<string>, oldLf: string, where: string): EditFailure => {
  const candidates = closestRegions(fileLines, oldLf, { max: 3 })
  if (candidates.length === 0) {
    return {
      kind: "not_found",
      message: `old_string was not found in ${where}, and no region of it looks similar. Read the file and copy the text to replace exactly, including indentation.`,
      details: "",
    }
  }
  // The candidates alone, touching ones merged: the model copies from them, it has read the rest.
  const merged: Array<{ startLine: number; endLine: number; similarity: number }> = []
  for (const c of [...candidates].sort((a, b) => a.startLine - b.startLine)) {
    const last = merged[merged.length - 1]
    if (last && c.startLine <= last.endLine + 1) {
      last.endLine = Math.max(last.endLine, c.endLine)
      last.similarity = Math.max(last.similarity, c.similarity)
    } else merged.push({ ...c })
  }
  const shown = merged.map(
    (c) => `${span(c.startLine, c.endLine)} (${Math.round(c.similarity * 100)}% similar):\n${renderRegion(fileLines, c.startLine, c.endLine, { context: 0, maxLines: 30 })}`,
  )
  const best = candidates[0]!
  return {
    kind: "not_found",
    message: `old_string was not found in ${where}, not even with whitespace differences. The nearest are ${span(best.startLine, best.endLine)}, shown below: copy old_string from them (without the line numbers).`,
    details: shown.join("\n"),
    line: best.startLine,
  }
}

const span = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`)
