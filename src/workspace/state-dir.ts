import { Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"

/**
 * Makes a folder of anvil's own state (under `.anvil/`) and drops a
 * `.gitignore` of `*` into it, so the user's `git status` stays clean.
 */
export const ensureStateDir = Effect.fn("ensureStateDir")(function* (dir: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  yield* fs.makeDirectory(dir, { recursive: true })
  const ignore = path.join(dir, ".gitignore")
  if (!(yield* fs.exists(ignore))) yield* fs.writeFileString(ignore, "*\n")
})
