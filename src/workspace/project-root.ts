import { Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"

/** Files whose presence marks a project root. */
export const ROOT_MARKERS = [".git", "anvil.json"] as const

/**
 * The project root for a working directory: the nearest ancestor holding
 * `.git` or `anvil.json`, else the working directory itself.
 */
export const findProjectRoot = Effect.fn("findProjectRoot")(function* (cwd: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  let dir = path.resolve(cwd)
  for (;;) {
    for (const marker of ROOT_MARKERS) {
      if (yield* fs.exists(path.join(dir, marker)).pipe(Effect.orElseSucceed(() => false))) return dir
    }
    const parent = path.dirname(dir)
    if (parent === dir) return path.resolve(cwd)
    dir = parent
  }
})

/** The project root a command works in: `--root`/ANVIL_ROOT when given (resolved from `cwd`), else {@link findProjectRoot}. */
export const projectRootOf = (cwd: string, given: string | undefined) =>
  Effect.gen(function* () {
    const path = yield* Path
    return given ? path.resolve(cwd, given) : yield* findProjectRoot(cwd)
  })
