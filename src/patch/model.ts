/**
 * The patch model every input format is parsed into: a list of file patches,
 * each a set of hunks plus what happens to the file itself (create, delete,
 * rename, copy, mode change). The unified-diff parser and the `*** Begin Patch`
 * parser both produce it; one engine locates, applies and writes it.
 */

/** One line of a hunk body. `text` has no line ending; a CRLF line keeps its "\r" out of `text` and sets `cr`. */
export interface HunkLine {
  readonly kind: " " | "-" | "+"
  readonly text: string
  /** The line ended in "\r\n" in the patch (a diff taken of a CRLF file). */
  readonly cr: boolean
}

export interface Hunk {
  /** 1-based position of the hunk in its file patch. */
  readonly number: number
  /** The header as written ("@@ -3,7 +3,8 @@ fn main" or "@@ def f():"), for messages. */
  readonly header: string
  /** Old-side start line from the header (1-based; 0 for an insertion at the top). Absent in `*** Begin Patch` hunks. */
  readonly oldStart?: number
  readonly lines: ReadonlyArray<HunkLine>
  /** "\ No newline at end of file" followed the last old-side line. */
  readonly oldNoNewline: boolean
  /** "\ No newline at end of file" followed the last new-side line. */
  readonly newNoNewline: boolean
  /** `*** Begin Patch` "@@ <line>" anchors: lines to find, in order, before the hunk's own context. */
  readonly anchors?: ReadonlyArray<string>
  /** `*** End of File`: the hunk's old lines end the file. */
  readonly atEnd?: boolean
  /** The header's counts disagreed with the body (the body is trusted). */
  readonly countsCorrected?: boolean
}

export type FileOperation = "modify" | "create" | "delete" | "rename" | "copy" | "mode"

/** What one patch does to one file. Paths are as the patch names them after prefix stripping (POSIX). */
export interface FilePatch {
  readonly operation: FileOperation
  /** The file read from (absent for create). */
  readonly oldPath?: string
  /** The file written (absent for delete). */
  readonly newPath?: string
  /** Git modes ("100644", "100755"). */
  readonly oldMode?: string
  readonly newMode?: string
  readonly hunks: ReadonlyArray<Hunk>
  /** Where the file's section starts in the patch text (1-based line), for messages. */
  readonly line: number
  /** The path as written before prefix stripping, for retrying other strip levels when it does not exist. */
  readonly rawOldPath?: string
  readonly rawNewPath?: string
  /** The strip level was chosen by the parser (not given by the caller), so the planner may try others. */
  readonly autoStrip?: boolean
  /** Parsed from the `*** Begin Patch` format (no line numbers; hunks are searched forward). */
  readonly beginPatch?: boolean
}

export type PatchFormat = "git" | "unified" | "begin-patch"

export interface ParsedPatch {
  readonly format: PatchFormat
  readonly files: ReadonlyArray<FilePatch>
}

/** The path a file patch is reported under: the new path, or the old one for a deletion. */
export const displayPath = (fp: FilePatch): string => fp.newPath ?? fp.oldPath ?? "?"

export const additionsOf = (fp: FilePatch): number =>
  fp.hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "+").length, 0)

export const deletionsOf = (fp: FilePatch): number =>
  fp.hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "-").length, 0)
