import { Effect } from "effect"
import { FileSystem } from "./file-system.ts"
import { Path } from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import { tempNameFor } from "./journal.ts"
import { closeQuietly } from "./checked-fs.ts"
import { keepOwner, keepOwnerAt } from "./keep-owner.ts"
import { constants, fchmodSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"

/**
 * Writes a file atomically: the bytes go to a temp file beside the target
 * (same folder, so the rename cannot cross devices), get the target's mode
 * (and owner and group, where the process may set them) when it exists, and
 * are renamed over it. A reader sees the old file or the new one, never half
 * of it; a failure leaves the target untouched and no temp file behind.
 * Parent folders are created.
 */
export const atomicWrite = (
  target: string,
  bytes: Uint8Array,
  options: { readonly mode?: number } = {},
): Effect.Effect<void, PlatformError, FileSystem | Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const dir = path.dirname(target)
    yield* fs.makeDirectory(dir, { recursive: true })
    const existing = yield* fs.stat(target).pipe(Effect.option)
    const mode = options.mode ?? (existing._tag === "Some" ? existing.value.mode & 0o7777 : undefined)
    const temp = path.join(dir, tempNameFor(path.basename(target)))
    yield* Effect.gen(function* () {
      yield* fs.writeFile(temp, bytes, { flag: "wx", ...(mode !== undefined ? { mode } : {}) })
      // The target's owner and group too, where the process may give them (as root: a user's anvil.json stays theirs).
      if (existing._tag === "Some" && existing.value.uid._tag === "Some" && existing.value.gid._tag === "Some") {
        const owner = { uid: existing.value.uid.value, gid: existing.value.gid.value }
        yield* Effect.try(() => keepOwnerAt(temp, owner)).pipe(Effect.ignore)
      }
      if (mode !== undefined) yield* fs.chmod(temp, mode)
      yield* fs.rename(temp, target)
    }).pipe(Effect.onError(() => fs.remove(temp).pipe(Effect.ignore)))
  })

/**
 * {@link atomicWrite} for a caller outside the Effect runtime (an answer saved from a prompt): the same temp name,
 * created exclusively and never through a link (a name planted beforehand fails the write instead of being written
 * through), the target's mode, owner and group, then the rename. The target's folder must exist.
 */
export const atomicWriteSync = (target: string, bytes: Uint8Array): void => {
  let existing: { mode: number; uid: number; gid: number } | undefined
  try {
    existing = statSync(target)
  } catch {
    existing = undefined
  }
  const temp = join(dirname(target), tempNameFor(basename(target)))
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666)
  try {
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done)
      if (existing !== undefined) {
        keepOwner(fd, existing)
        fchmodSync(fd, existing.mode & 0o7777)
      }
    } finally {
      closeQuietly(fd)
    }
    renameSync(temp, target)
  } catch (e) {
    try {
      unlinkSync(temp)
    } catch {
      // already gone
    }
    throw e
  }
}
