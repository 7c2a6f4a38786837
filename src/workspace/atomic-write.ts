import { Effect, Random } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import type { PlatformError } from "effect/PlatformError"

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
    const nonce = (yield* Random.nextIntBetween(0, 2 ** 31)).toString(36)
    const temp = path.join(dir, `.${path.basename(target)}.anvil-${nonce}.tmp`)
    yield* Effect.gen(function* () {
      yield* fs.writeFile(temp, bytes, { flag: "wx", ...(mode !== undefined ? { mode } : {}) })
      if (mode !== undefined) yield* fs.chmod(temp, mode)
      yield* fs.rename(temp, target)
    }).pipe(Effect.onError(() => fs.remove(temp).pipe(Effect.ignore)))
  })
