import type { FileDiff } from "./diff.ts"
import type { CommitOutcome } from "./target-file.ts"
import { describeFormat, type TextFormat } from "./text-encoding.ts"

/**
 * The parts of a write/edit result every file-changing tool shares: the
 * data fields for the diff and hashes, and the lines of text that show them.
 */

const pyBool = (b: boolean) => (b ? "True" : "False")

export const diffData = (diff: FileDiff) => ({
  diff: diff.diff,
  additions: diff.additions,
  deletions: diff.deletions,
  diff_truncated: diff.truncated,
})

export const hashData = (commit: CommitOutcome) => ({
  sha256_before: commit.sha256Before,
  sha256_after: commit.sha256After,
})

/** What write, edit and multiedit all report about the file they wrote: sizes, hashes, the diff and its format. */
export const writtenFileData = (commit: CommitOutcome, format: TextFormat) => ({
  bytes_written: commit.bytesWritten,
  file_bytes: commit.fileBytes,
  ...hashData(commit),
  ...diffData(commit.diff),
  encoding: format.encoding,
  bom: format.bom,
  line_endings: format.eol,
})

/** "Changes: +3 -1", noting a cut diff. */
export const changesLine = (diff: FileDiff): string => {
  if (diff.additions === 0 && diff.deletions === 0) return "Changes: none (the text is unchanged)"
  const shown = diff.diff.split("\n").length - 1
  const cut = diff.truncated ? ` (the diff below shows its first ${shown} of ${diff.totalLines} lines; Read the file for the rest)` : ""
  return `Changes: +${diff.additions} -${diff.deletions}${cut}`
}

export const hashLines = (commit: CommitOutcome): Array<string> => [
  `SHA256 before: ${commit.sha256Before ?? "(none: new file)"}`,
  `SHA256 after: ${commit.sha256After}`,
]

export const createdLine = (commit: CommitOutcome): string => `Created: ${pyBool(commit.created)}`

/** "Format: utf-8, BOM, CRLF line endings (kept)" for an existing file, "(new file)" otherwise. */
export const formatLine = (format: TextFormat, existed: boolean): string =>
  `Format: ${describeFormat(format)}${existed ? " (kept)" : ""}`

/** The text body: status lines, a blank line, the diff. */
export const body = (lines: ReadonlyArray<string>, diff: FileDiff, dryRun: boolean): string =>
  [
    ...(dryRun ? ["Dry-run only, no actual write performed.", ""] : []),
    ...lines,
    ...(diff.diff !== "" ? ["", diff.diff.replace(/\n$/, "")] : []),
  ].join("\n")

export const fileOps = (display: string, operation: string, commit: CommitOutcome) => ({
  file_ops: {
    file_path: display,
    operation,
    bytes_written: commit.bytesWritten,
    sha256_before: commit.sha256Before,
    sha256_after: commit.sha256After,
  },
})

export { pyBool }
