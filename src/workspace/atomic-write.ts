import { Effect } from "effect"
import { FileSystem } from "./file-system.ts"
import { Path } from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import { tempNameFor } from "./journal.ts"

/**
 * Writes a file atomically: the bytes go to a temp file beside the target
 * (same folder, so the rename cannot cross devices), get the target's mode when
 * it exists, and are renamed over it. A reader sees the old file or the new
 * one, never half of it; a failure leaves the target untouched and no temp file
 * behind. Parent folders are created.
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
      if (mode !== undefined) yield* fs.chmod(temp, mode)
      yield* fs.rename(temp, target)
    }).pipe(Effect.onError(() => fs.remove(temp).pipe(Effect.ignore)))
  })
