import { Effect, Option, Random } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { errnoOf, fromPlatformError } from "./fs-error.ts"

/** A file as it was read: its bytes and mode, and the stamp used to notice a change since. */
export interface FileBefore {
  readonly bytes: Uint8Array
  /** Permission bits (0o7777). */
  readonly mode: number
  readonly size: number
  readonly mtimeMs: number | undefined
}

/** The new state of a file: bytes and permission bits. */
export interface FileAfter {
  readonly bytes: Uint8Array
  readonly mode: number
}

/** One path's change: absent `before` creates it, absent `after` removes it. */
export interface FileChange {
  /** Absolute path. */
  readonly path: string
  /** How messages name it (root-relative). */
  readonly display: string
  readonly before?: FileBefore
  readonly after?: FileAfter
}

export interface CommitOptions {
  /** Empty folders left by removals are pruned up to (not including) this folder. */
  readonly root: string
}

/** Byte equality (native compare: files may be megabytes). */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a === b || (a.length === b.length && Buffer.compare(a, b) === 0)

type Step =
  | { readonly kind: "removed"; readonly change: FileChange }
  | { readonly kind: "written"; readonly change: FileChange }
  | { readonly kind: "chmod"; readonly change: FileChange }

/**
 * Applies a set of file changes all or nothing.
 *
 * 1. Every file still looks as it did when read (size, mtime; absent files are
 *    still absent), else CONFLICT and nothing is touched.
 * 2. Every new content is written to a temp file beside its target (missing
 *    folders created); a failure here (disk full…) removes the temps and the
 *    created folders, leaving the tree as it was.
 * 3. Removals, then renames of the temps over their targets (each atomic:
 *    readers see the old file or the new one), then mode changes. If any step
 *    fails, the steps done are undone in reverse from the `before` bytes kept
 *    in memory, so on any error no file has changed.
 * 4. Folders left empty by removals are pruned (as git does).
 *
 * A crash of the process in the middle of step 3 is not covered.
 */
export const commitChanges = (
  changes: ReadonlyArray<FileChange>,
  options: CommitOptions,
): Effect.Effect<void, ToolError, FileSystem | Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path

    // 1. Unchanged since read.
    for (const c of changes) {
      const now = yield* fs.stat(c.path).pipe(Effect.option)
      if (c.before === undefined) {
        if (Option.isSome(now)) return yield* toolError("CONFLICT", `${c.display} appeared on disk while the patch was being prepared. Nothing was changed; retry.`)
        continue
      }
      const stamp = Option.getOrUndefined(now)
      const mtime = stamp ? Option.getOrUndefined(stamp.mtime)?.getTime() : undefined
      if (!stamp || Number(stamp.size) !== c.before.size || (c.before.mtimeMs !== undefined && mtime !== undefined && Math.floor(mtime) !== Math.floor(c.before.mtimeMs))) {
        return yield* toolError("CONFLICT", `${c.display} changed on disk while the patch was being prepared. Nothing was changed; read it again and retry.`)
      }
    }

    // 2. Stage new contents.
    const temps = new Map<FileChange, string>()
    const createdDirs: Array<string> = []
    const discardStaged = Effect.gen(function* () {
      for (const t of temps.values()) yield* fs.remove(t).pipe(Effect.ignore)
      for (const d of [...createdDirs].reverse()) yield* fs.remove(d, { recursive: true }).pipe(Effect.ignore)
    })
    const writes = changes.filter((c) => c.after !== undefined && (c.before === undefined || !sameBytes(c.before.bytes, c.after.bytes)))
    const staged = yield* Effect.gen(function* () {
      for (const c of writes) {
        const dir = path.dirname(c.path)
        const missing = yield* missingAncestors(dir)
        if (missing.length > 0) {
          yield* fs.makeDirectory(dir, { recursive: true })
          createdDirs.push(missing[missing.length - 1]!)
        }
        const temp = path.join(dir, `.${path.basename(c.path)}.anvil-${(yield* Random.nextIntBetween(0, 2 ** 31)).toString(36)}.tmp`)
        yield* fs.writeFile(temp, c.after!.bytes, { flag: "wx", mode: c.after!.mode })
        temps.set(c, temp)
        yield* fs.chmod(temp, c.after!.mode)
      }
    }).pipe(Effect.result)
    if (staged._tag === "Failure") {
      yield* discardStaged
      const cause = fromPlatformError(staged.failure, describe(staged.failure, changes))
      return yield* toolError(cause.code, `${cause.message} Nothing was changed.`)
    }

    // 3. Commit, with a journal to undo.
    const done: Array<Step> = []
    const commit = Effect.gen(function* () {
      for (const c of changes) {
        if (c.after === undefined && c.before !== undefined) {
          yield* fs.remove(c.path)
          done.push({ kind: "removed", change: c })
        }
      }
      for (const c of writes) {
        yield* fs.rename(temps.get(c)!, c.path)
        temps.delete(c)
        done.push({ kind: "written", change: c })
      }
      for (const c of changes) {
        if (c.after && c.before && sameBytes(c.before.bytes, c.after.bytes) && c.before.mode !== c.after.mode) {
          yield* fs.chmod(c.path, c.after.mode)
          done.push({ kind: "chmod", change: c })
        }
      }
    })
    const committed = yield* Effect.result(commit)
    if (committed._tag === "Failure") {
      const failed: Array<string> = []
      for (const step of [...done].reverse()) {
        const undo = undoStep(step)
        const r = yield* Effect.result(undo)
        if (r._tag === "Failure") failed.push(step.change.display)
      }
      yield* discardStaged
      const cause = fromPlatformError(committed.failure, describe(committed.failure, changes))
      if (failed.length > 0) {
        return yield* toolError(
          "EXECUTION_ERROR",
          `${cause.message} Rolling back failed for: ${failed.join(", ")} — these files may be left changed; check them.`,
        )
      }
      return yield* toolError(cause.code, `${cause.message} Every change was rolled back; no file was changed.`)
    }

    // 4. Prune folders emptied by removals.
    for (const c of changes) {
      if (c.after === undefined && c.before !== undefined) yield* pruneEmptyParents(c.path, options.root)
    }

    function undoStep(step: Step): Effect.Effect<void, PlatformError> {
      const c = step.change
      switch (step.kind) {
        case "chmod":
          return fs.chmod(c.path, c.before!.mode)
        case "removed":
          return restore(c.path, c.before!)
        case "written":
          return c.before ? restore(c.path, c.before) : fs.remove(c.path)
      }
    }

    function restore(target: string, before: FileBefore): Effect.Effect<void, PlatformError> {
      return Effect.gen(function* () {
        const dir = path.dirname(target)
        yield* fs.makeDirectory(dir, { recursive: true })
        const temp = path.join(dir, `.${path.basename(target)}.anvil-restore-${(yield* Random.nextIntBetween(0, 2 ** 31)).toString(36)}.tmp`)
        yield* fs.writeFile(temp, before.bytes, { flag: "wx", mode: before.mode })
        yield* fs.chmod(temp, before.mode)
        yield* fs.rename(temp, target).pipe(Effect.onError(() => fs.remove(temp).pipe(Effect.ignore)))
      })
    }

    function missingAncestors(dir: string): Effect.Effect<Array<string>> {
      return Effect.gen(function* () {
        const missing: Array<string> = []
        let d = dir
        while (!(yield* fs.exists(d).pipe(Effect.orElseSucceed(() => true)))) {
          missing.push(d)
          const parent = path.dirname(d)
          if (parent === d) break
          d = parent
        }
        return missing
      })
    }

    function pruneEmptyParents(file: string, root: string): Effect.Effect<void> {
      return Effect.gen(function* () {
        let d = path.dirname(file)
        while (d !== root && d.startsWith(root + path.sep)) {
          const entries = yield* fs.readDirectory(d).pipe(Effect.orElseSucceed(() => ["?"]))
          if (entries.length > 0) return
          // remove() has no rmdir mode; the folder was just seen empty.
          const removed = yield* fs.remove(d, { recursive: true }).pipe(Effect.result)
          if (removed._tag === "Failure") return
          d = path.dirname(d)
        }
      })
    }
  })

/** The root-relative name of the file a platform error is about (its temp file counts), else the raw path. */
const describe = (error: PlatformError, changes: ReadonlyArray<FileChange>): string => {
  const p = (error.reason as { pathOrDescriptor?: unknown }).pathOrDescriptor
  if (typeof p !== "string") return errnoOf(error) ?? "a file of the patch"
  const hit = changes.find((c) => {
    const slash = c.path.lastIndexOf("/")
    return p === c.path || p.startsWith(`${c.path.slice(0, slash)}/.${c.path.slice(slash + 1)}.anvil-`)
  })
  return hit ? hit.display : p
}
