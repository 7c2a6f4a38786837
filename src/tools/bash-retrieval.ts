import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { quoteArg, type StreamReport } from "../shell/run-shell.ts"

/** What the read tool returns at most: lines per call and characters per line. */
export interface ReadLimits {
  readonly maxLimit: number
  readonly maxLineLength: number
}

/** Bytes one byte-range hint asks for: well inside one bash answer, so it is not cut again. */
const BYTE_WINDOW = 16_384

/** "lines 981-4020 are not shown" for a cut stream, in the numbering Read shows (1-based). */
export const unseenLines = (s: StreamReport): string => {
  const { omittedFromLine: from, omittedToLine: to } = s.shown
  return to <= from + 1 ? `line ${to} is not shown whole` : `lines ${from + 1}-${to} are not shown`
}

/**
 * How to get back the part of a saved stream the answer left out, following the hint as given:
 * Read from the first unseen line (Read's offset is lines skipped) for text; a byte range through
 * the shell when the unseen lines are longer than Read shows of a line; a dump for binary output,
 * which Read refuses.
 */
export const unseenHints = (
  s: StreamReport,
  read: ReadLimits,
  priority: RetrievalHint["priority"],
  /** Add a Grep of the saved file (the first stream's; one is enough per answer). */
  grep: boolean,
): ReadonlyArray<RetrievalHint> => {
  if (s.path === null || !s.shown.truncated) return []
  const path = quoteArg(s.path)
  const { omittedFromLine, omittedToLine, omittedFromByte, omittedBytes, omittedLines, binary } = s.shown
  if (binary) return [hint("Bash", priority, { command: `od -A d -c -N 1024 ${path}` })]
  const lines = omittedToLine - omittedFromLine
  const search = grep ? [hint("Grep", "medium", { pattern: "<keyword>", path: s.path })] : []
  // On average longer than Read shows of one line: Read would cut exactly the bytes that were left out.
  if (omittedBytes > (omittedLines + 1) * read.maxLineLength) {
    return [
      hint("Bash", priority, { command: `tail -c +${omittedFromByte + 1} ${path} | head -c ${Math.min(omittedBytes, BYTE_WINDOW)}` }),
      ...search,
    ]
  }
  return [
    hint("Read", priority, { path: s.path, offset: omittedFromLine, limit: Math.max(1, Math.min(lines, read.maxLimit)) }),
    ...search,
  ]
}
