import { unifiedDiff, type DiffOptions, type FileDiff } from "./diff.ts"

/** What a file change did beyond its lines' text: what the diff of the LF views cannot show. */
export interface TextDiff extends FileDiff {
  /** Line endings changed (a line now ends in CRLF where it ended in LF, or the reverse): the diff marks each CR with ␍. */
  readonly endingsShown?: true
  /** The changed lines differ only in spaces, tabs and line breaks. */
  readonly whitespaceOnly?: true
}

/** The symbol a diff shows for a carriage return ending a line (U+240D), so a change of line ending is a visible change. */
export const CR_MARK = "\u240d"

const markCr = (text: string): string => text.replace(/\r\n/g, `${CR_MARK}\n`)

/**
 * The diff of a file change, as the model and the user should see it. Both texts are compared with LF line breaks,
 * so a CRLF file's changed lines read as written; when that hides a change — only the endings of some lines
 * changed, or with the text — the diff is taken again with each CR shown as ␍, and says so.
 */
export const textDiff = (before: string, after: string, options: DiffOptions): TextDiff => {
  const lf = unifiedDiff(before.replace(/\r\n/g, "\n"), after.replace(/\r\n/g, "\n"), options)
  const spacing = lf.additions + lf.deletions > 0 || before !== after ? whitespaceOnly(before, after) : false
  const shown: TextDiff = spacing && lf.additions + lf.deletions > 0 ? { ...lf, whitespaceOnly: true } : lf
  if (!before.includes("\r") && !after.includes("\r")) return shown
  const raw = unifiedDiff(markCr(before), markCr(after), options)
  // The same lines changed either way: no ending changed apart from the text.
  if (raw.additions === lf.additions && raw.deletions === lf.deletions) return shown
  // Whitespace only is said of the text's own change; endings alone are said as such.
  return { ...raw, endingsShown: true, ...(spacing && lf.additions + lf.deletions > 0 ? { whitespaceOnly: true as const } : {}) }
}

/** Whether two different texts differ only in whitespace, looking only at the window between their common ends (a 10 MB file's one-line edit costs a scan). */
const whitespaceOnly = (before: string, after: string): boolean => {
  const limit = Math.min(before.length, after.length)
  let p = 0
  while (p < limit && before.charCodeAt(p) === after.charCodeAt(p)) p++
  let s = 0
  while (s < limit - p && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s++
  const strip = (t: string) => t.slice(p, t.length - s).replace(/\s+/g, "")
  return strip(before) === strip(after)
}

