import { Effect } from "effect"
import { FileSystem, type File } from "effect/FileSystem"
import { Path } from "effect/Path"
import { hint } from "../protocol/hint.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { atomicWrite } from "../workspace/atomic-write.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { errnoOf, fromPlatformError } from "../workspace/fs-error.ts"
import { Workspace, type ResolvedPath } from "../workspace/workspace.ts"
import { unifiedDiff, type FileDiff } from "./diff.ts"
import { sha256Hex } from "./hash.ts"
import { decodeText, encodeText, type DecodedText, type TextFormat } from "./text-encoding.ts"

/** An existing file as a write or edit found it. */
export interface ExistingFile {
  readonly decoded: DecodedText
  readonly sha256: string
  readonly size: number
  readonly mtimeMs: number
}

/** The file a write or edit is about to change. */
export interface TargetFile {
  readonly resolved: ResolvedPath
  /** How results name it (root-relative). */
  readonly display: string
  /** Where the bytes go: the real path, so a symlink inside the project is written through, not replaced. */
  readonly writePath: string
  /** Absent when the file does not exist yet. */
  readonly existing?: ExistingFile
}

const mtimeOf = (info: File.Info): number => (info.mtime._tag === "Some" ? info.mtime.value.getTime() : 0)

/**
 * Resolves and loads the target of a write or edit: sandbox checks, then
 * IS_DIRECTORY for folders, INVALID_PARAM for special files and files over
 * `maxBytes`, BINARY_FILE for content that is not text. A missing file (or a
 * dangling link inside the project) comes back without `existing`.
 */
export const openTarget = (
  input: string,
  options: { readonly maxBytes: number; readonly limitKey: string },
): Effect.Effect<TargetFile, ToolError, Workspace | FileSystem> =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const fs = yield* FileSystem
    const resolved = yield* workspace.resolve(input)
    const display = resolved.display
    const base = { resolved, display, writePath: resolved.real }
    const context = { path_resolved: display }
    if (!resolved.exists) return base
    const statResult = yield* fs.stat(resolved.real).pipe(Effect.result)
    if (statResult._tag === "Failure") {
      const errno = errnoOf(statResult.failure)
      if (errno === "ENOENT" || statResult.failure.reason._tag === "NotFound") return base
      return yield* fromPlatformError(statResult.failure, display)
    }
    const info = statResult.success
    if (info.type === "Directory") {
      return yield* toolError("IS_DIRECTORY", `${display} is a directory, not a file. Name a file inside it.`, {
        hints: [hint("LS", "medium", { path: display })],
        context,
      })
    }
    if (info.type !== "File") {
      return yield* toolError("INVALID_PARAM", `${display} is not a regular file (it is a ${info.type}).`, {
        fieldErrors: [{ field: "path", message: `not a regular file (${info.type})` }],
        context,
      })
    }
    const size = Number(info.size)
    if (size > options.maxBytes) {
      return yield* toolError(
        "INVALID_PARAM",
        `${display} is ${size} bytes, over the ${options.maxBytes}-byte limit for this tool (setting ${options.limitKey}).`,
        { fieldErrors: [{ field: "path", message: "file too large" }], context },
      )
    }
    const bytes = yield* fs.readFile(resolved.real).pipe(Effect.mapError((e) => fromPlatformError(e, display)))
    const decoded = decodeText(bytes)
    if (!decoded.ok) {
      return yield* toolError("BINARY_FILE", `${display} is a binary file (${decoded.reason}); it cannot be changed as text.`, { context })
    }
    return { ...base, existing: { decoded: decoded.value, sha256: sha256Hex(bytes), size: bytes.length, mtimeMs: mtimeOf(info) } }
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
  readonly diff: FileDiff
}

/**
 * Writes a file's new text in its format (encoding and BOM) atomically,
 * unless `dryRun`; records the new stamp in the session's ledger so the next
 * edit of the same file needs no new read; and computes the diff against the
 * old text. A file that changed on disk while the change was being prepared is
 * a retryable CONFLICT.
 */
export const commitText = (input: {
  readonly target: TargetFile
  readonly text: string
  readonly format: Pick<TextFormat, "encoding" | "bom">
  readonly dryRun: boolean
  readonly maxDiffLines: number
}): Effect.Effect<CommitOutcome, ToolError, FileSystem | Path | FileLedger> =>
  Effect.gen(function* () {
    const { target } = input
    const fs = yield* FileSystem
    const ledger = yield* FileLedger
    const bytes = encodeText(input.text, input.format)
    const sha256After = sha256Hex(bytes)
    const existing = target.existing
    const diff = unifiedDiff(existing ? existing.decoded.text.replace(/\r\n/g, "\n") : "", input.text.replace(/\r\n/g, "\n"), {
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
    if (existing) {
      const now = yield* fs.stat(target.writePath).pipe(Effect.option)
      const moved =
        now._tag === "None" || Number(now.value.size) !== existing.size || mtimeOf(now.value) !== existing.mtimeMs
      if (moved) {
        return yield* toolError("CONFLICT", `${display} changed on disk while this change was being prepared; nothing was written.`, {
          retryable: true,
          hints: [hint("Read", "high", { path: display })],
          context: { path_resolved: display },
        })
      }
    } else if (yield* fs.exists(target.writePath).pipe(Effect.orElseSucceed(() => false))) {
      return yield* toolError("CONFLICT", `${display} was created by something else while this change was being prepared; nothing was written.`, {
        retryable: true,
        hints: [hint("Read", "high", { path: display })],
        context: { path_resolved: display },
      })
    }
    yield* atomicWrite(target.writePath, bytes).pipe(Effect.mapError((e) => fromPlatformError(e, display)))
    const after = yield* fs.stat(target.writePath).pipe(Effect.option)
    if (after._tag === "Some") {
      yield* ledger.record(target.writePath, { mtimeMs: mtimeOf(after.value), size: Number(after.value.size), sha256: sha256After })
    }
    return { ...outcome, applied: true, bytesWritten: bytes.length }
  })
