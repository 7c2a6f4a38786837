import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import { refuseInsideGit, refuseProtected } from "../sandbox/protected-write.ts"
import { closeQuietly, fileTypeName, notWritable, notWritableWhy, readAllFd, stampOf } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { commitChanges, type FileBefore, type FileChange } from "../workspace/file-transaction.ts"
import { refuseEmptyPath, refuseFolderSyntax } from "../workspace/file-path.ts"
import { fromErrno } from "../workspace/fs-error.ts"
import { Workspace, type ResolvedPath } from "../workspace/workspace.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { textDiff, type TextDiff } from "./text-diff.ts"
import { loneSurrogate, loneSurrogateProblem } from "../protocol/lone-surrogate.ts"
import { EditError } from "./edit-error.ts"
import { sha256Hex } from "./hash.ts"
import { decodeText, encodeText, type DecodedText, type TextFormat } from "./text-encoding.ts"

/** An existing file as a write or edit found it. */
export interface ExistingFile {
  readonly decoded: DecodedText
  readonly sha256: string
  readonly size: number
  readonly mtimeMs: number
  /** The bytes as read, and what the commit checks under its lock: the file is still exactly this one. */
  readonly before: FileBefore
  /** Its names (hard links) when read: the new content replaces this name only, the others keep the old one. */
  readonly links: number
}

/** The file a write or edit is about to change. */
export interface TargetFile {
  readonly resolved: ResolvedPath
  /** How results name it (root-relative). */
  readonly display: string
  /** The file's real path when it exists (the ledger's key; a link inside the project is written through, not replaced). */
  readonly writePath: string
  /** Absent when the file does not exist yet. */
  readonly existing?: ExistingFile
}

/**
 * Resolves and loads the target of a write or edit: sandbox checks on the
 * opened file itself, then refuses folders, special files, files over
 * `maxBytes` and content that is not text.
 * A missing file (or a dangling link inside the project) comes back without
 * `existing`.
 */
export const openTarget = (
  input: string,
  options: {
    readonly maxBytes: number
    readonly limitKey: string
    /** Only to read it (a plugin's `files.read`): a protected or read-only file may be read, just not changed. */
    readonly readOnly?: boolean
  },
): Effect.Effect<TargetFile, EditError | WorkspaceError, Workspace> =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    yield* refuseEmptyPath(input)
    const resolved = yield* workspace.resolve(input)
    const display = resolved.display
    yield* refuseInsideGit(resolved, "path")
    // What a confined command may not change (git hooks, anvil.json, .vscode/…), no file tool changes either.
    if (!options.readOnly) yield* refuseProtected(resolved, "path")
    const base = { resolved, display, writePath: resolved.real }
    if (!resolved.exists) {
      yield* refuseFolderSyntax(input, display)
      return base
    }
    const file = yield* openChecked(workspace.contains, resolved.absolute, input, display)
    if (file === undefined) {
      yield* refuseFolderSyntax(input, display)
      return base
    }
    try {
      const info = file.stat
      if (info.isDirectory()) {
        return yield* new EditError({
          reason: "is_directory",
          message: `${display} is a directory, not a file. Name a file inside it.`,
          hints: [hint("LS", "medium", { path: display })],
          path: display,
        })
      }
      yield* refuseFolderSyntax(input, display)
      if (!info.isFile()) {
        return yield* new EditError({
          reason: "not_a_file",
          message: `${display} is not a regular file (it is a ${fileTypeName(info)}).`,
          field: { name: "path", problem: `not a regular file (${fileTypeName(info)})` },
          path: display,
        })
      }
      if (!options.readOnly && notWritable(file.fd, Number(info.mode))) {
        const why = notWritableWhy(display, Number(info.mode), Number(info.uid))
        return yield* new EditError({
          reason: "read_only",
          message: `${why.reason}; nothing was written.${why.advice}`,
          hints: [hint("Bash", "medium", { command: why.command })],
          path: display,
        })
      }
      const size = Number(info.size)
      if (size > options.maxBytes) {
        return yield* new EditError({
          reason: "too_large",
          message: `${display} is ${size} bytes, over the ${options.maxBytes}-byte limit for this tool (setting ${options.limitKey}).`,
          field: { name: "path", problem: "file too large" },
          path: display,
        })
      }
      const bytes = yield* Effect.try({ try: () => readAllFd(file.fd, size), catch: (e) => fromErrno((e as { code?: string }).code, display, String(e)) })
      const decoded = decodeText(bytes)
      if (!decoded.ok) {
        return yield* new EditError({ reason: "binary", message: `${display} is a binary file (${decoded.reason}); it cannot be changed as text.`, path: display })
      }
      const mtimeMs = Number(info.mtimeMs)
      const before: FileBefore = { bytes, mode: Number(info.mode & 0o7777n), size: bytes.length, mtimeMs, stamp: stampOf(info) }
      return { ...base, writePath: file.real, existing: { decoded: decoded.value, sha256: sha256Hex(bytes), size: bytes.length, mtimeMs, before, links: Number(info.nlink) } }
    } finally {
      closeQuietly(file.fd)
    }
  })

/** What committing a new text did. */
export interface CommitOutcome {
  /** False for a dry run. */
  readonly applied: boolean
  readonly created: boolean
  /** Bytes written to disk: the whole file (it is replaced atomically); 0 for a dry run. */
  readonly bytesWritten: number
  /** Size of the file's new content in bytes. */
  readonly fileBytes: number
  /** null when the file did not exist. */
  readonly sha256Before: string | null
  readonly sha256After: string
  readonly diff: TextDiff
  /**
   * Other names (hard links) the file had, which kept the old content: the new content is a file of its own. Written
   * in place instead, a hard link made to a file outside the project would let a tool change that file.
   */
  readonly otherNames?: number
}

/**
 * Writes a file's new text in its format (encoding and BOM) atomically,
 * unless `dryRun`; records the new stamp in the session's ledger so the next
 * edit of the same file needs no new read; and computes the diff against the
 * old text. A file that changed on disk while the change was being prepared
 * fails as changed (worth retrying), with a hint to read it again.
 */
export const commitText = (input: {
  readonly target: TargetFile
  readonly text: string
  readonly format: Pick<TextFormat, "encoding" | "bom">
  readonly dryRun: boolean
  readonly maxDiffLines: number
}): Effect.Effect<CommitOutcome, WorkspaceError, Workspace | FileLedger> =>
  Effect.gen(function* () {
    const { target } = input
    const ledger = yield* FileLedger
    const { text } = input
    // A plugin's files.write is not decoded as a call's parameters are: its text is checked here, as they are there.
    const lone = loneSurrogate(text)
    if (lone !== undefined) {
      return yield* new WorkspaceError({
        reason: "not_usable",
        message: `${target.display} was not changed: the content ${loneSurrogateProblem(lone)}.`,
        field: { name: "content", problem: "a lone UTF-16 surrogate" },
      })
    }
    const bytes = encodeText(text, input.format)
    const sha256After = sha256Hex(bytes)
    const existing = target.existing
    const diff = textDiff(existing ? existing.decoded.text : "", text, {
      oldName: existing ? `a/${target.display}` : "/dev/null",
      newName: `b/${target.display}`,
      maxLines: input.maxDiffLines,
    })
    const outcome = {
      created: existing === undefined,
      fileBytes: bytes.length,
      sha256Before: existing ? existing.sha256 : null,
      sha256After,
      diff,
    }
    if (input.dryRun) return { ...outcome, applied: false, bytesWritten: 0 }

    const display = target.display
    const workspace = yield* Workspace
    const change: FileChange = existing
      ? { path: target.writePath, display, before: existing.before, after: { bytes, sha256: sha256After } }
      : { path: target.resolved.absolute, display, after: { bytes, sha256: sha256After } }
    const [done] = yield* commitChanges([change], {
      root: workspace.root,
      contains: workspace.contains,
      journalDir: workspace.stateDir("journal"),
    }).pipe(
      // Rebuilt field by field: a tagged error's message is not an own enumerable property, so a spread would drop it.
      Effect.mapError((e) =>
        e.reason === "changed"
          ? new WorkspaceError({
              reason: e.reason,
              message: e.message,
              ...(e.field ? { field: e.field } : {}),
              ...(e.path !== undefined ? { path: e.path } : {}),
              hints: [hint("Read", "high", { path: display })],
            })
          : e,
      ),
    )
    if (done?.size !== undefined) {
      yield* ledger.record(done.real, { mtimeMs: done.mtimeMs ?? 0, size: done.size, sha256: sha256After })
    }
    const otherNames = existing && existing.links > 1 ? { otherNames: existing.links - 1 } : {}
    return { ...outcome, ...otherNames, applied: true, bytesWritten: bytes.length }
  })
