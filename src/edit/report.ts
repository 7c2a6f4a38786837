import type { FileDiff } from "./diff.ts"
import type { CommitOutcome } from "./target-file.ts"
import { CR_MARK } from "./text-diff.ts"
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
  // Said only when true: what the counts alone do not tell.
  ...(commit.sha256Before === commit.sha256After ? { unchanged: true } : {}),
  ...(commit.diff.endingsShown ? { endings_changed: true } : {}),
  ...(commit.diff.whitespaceOnly ? { whitespace_only: true } : {}),
  ...(commit.otherNames !== undefined ? { hard_links_kept_old: commit.otherNames } : {}),
})

/**
 * Where replacements start, each line named once ("line 1" for two in one line, "lines 3, 4, 7"), with "…" when
 * more were made than are listed.
 */
export const replacedLines = (lines: ReadonlyArray<number>, replacements: number): string => {
  const unique = [...new Set(lines)]
  return `line${unique.length === 1 ? "" : "s"} ${unique.join(", ")}${replacements > lines.length ? ", …" : ""}`
}

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

/**
 * The diff's changed lines only, for the model: each run of removed and added
 * lines under its own `@@ -a,b +c,d @@` header, context lines dropped (the
 * model has just read them). `data.diff` keeps the full unified diff.
 */
export const changedLines = (diff: string): string => {
  const out: Array<string> = []
  let oldNo = 0
  let newNo = 0
  let run: Array<string> = []
  let runOld = 0
  let runNew = 0
  let removed = 0
  let added = 0
  const range = (start: number, count: number) => (count === 1 ? `${start}` : `${count === 0 ? Math.max(0, start - 1) : start},${count}`)
  const flush = () => {
    if (run.length === 0) return
    out.push(`@@ -${range(runOld, removed)} +${range(runNew, added)} @@`, ...run)
    run = []
    removed = 0
    added = 0
  }
  for (const line of diff.split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (hunk) {
      flush()
      oldNo = Number(hunk[1])
      newNo = Number(hunk[2])
      continue
    }
    if (line.startsWith("---") || line.startsWith("+++") || line === "") continue
    if (line.startsWith("\\")) {
      if (run.length > 0) run.push(line)
      continue
    }
    if (line.startsWith("-") || line.startsWith("+")) {
      if (run.length === 0) {
        runOld = oldNo
        runNew = newNo
      }
      run.push(line)
      if (line.startsWith("-")) {
        removed++
        oldNo++
      } else {
        added++
        newNo++
      }
      continue
    }
    flush()
    oldNo++
    newNo++
  }
  flush()
  return out.join("\n")
}

/** A hash short enough to say once per answer, long enough to tell versions apart. */
export const shortHash = (sha256: string): string => sha256.slice(0, 12)

/**
 * "+3 -1", noting a cut diff, changed line endings (the diff marks them ␍), a change of whitespace only and other
 * names of the file (hard links) left with the old content; "no change" only when the file's bytes are what they were.
 */
export const changeCounts = (commit: CommitOutcome): string => {
  const { diff } = commit
  const notes = [
    ...(diff.endingsShown ? [`line endings changed: ${CR_MARK} marks a line that ends in CRLF`] : []),
    ...(diff.whitespaceOnly ? ["whitespace only"] : []),
    ...(commit.otherNames !== undefined ? [hardLinkNote(commit.otherNames)] : []),
    ...(diff.truncated ? [`the lines below are cut short; ${diff.whole !== undefined ? "the whole diff is saved, named below" : "read the file for the rest"}`] : []),
  ]
  const said = notes.length > 0 ? ` (${notes.join("; ")})` : ""
  if (commit.sha256Before !== null && commit.sha256Before === commit.sha256After) return `no change: the file's bytes are as they were${said}`
  if (diff.additions === 0 && diff.deletions === 0) return `no change to the text, but the bytes changed (encoding or byte-order mark)${said}`
  return `+${diff.additions} -${diff.deletions}${said}`
}

/** What an atomic replace did to a file with other names (hard links): they keep the old content. */
export const hardLinkNote = (others: number): string =>
  `the file had ${others === 1 ? "another name (a hard link), which keeps" : `${others} other names (hard links), which keep`} the old content: this name is now a file of its own`

/** What an existing file kept, said only when it is not plain UTF-8 with LF endings. */
export const keptFormat = (format: TextFormat, existed: boolean): string =>
  existed && (format.encoding !== "utf-8" || format.bom || format.eol === "crlf") ? `; kept ${describeFormat(format)}` : ""

/** The model's text of a file change: status lines, then the changed lines only. */
export const changedBody = (lines: ReadonlyArray<string>, diff: FileDiff, dryRun: boolean): string => {
  const changed = changedLines(diff.diff)
  return [...(dryRun ? ["Dry run: nothing was written."] : []), ...lines, ...(changed !== "" ? [changed] : [])].join("\n")
}
