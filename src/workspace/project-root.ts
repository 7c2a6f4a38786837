import { Effect } from "effect"
import { existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

/** Files whose presence marks a project root. */
export const ROOT_MARKERS = [".git", "anvil.json"] as const

/**
 * The project root for a working directory: the nearest ancestor holding
 * `.git` or `anvil.json`, else the working directory itself. Plain sync
 * checks: a few stat calls cost less than scheduling them through a file
 * system service, and every command starts here.
 */
export const findProjectRootSync = (cwd: string): string => {
  const start = resolve(cwd)
  for (let dir = start; ; dir = dirname(dir)) {
    if (ROOT_MARKERS.some((marker) => existsSync(join(dir, marker)))) return dir
    if (dirname(dir) === dir) return start
  }
}

/** The project root a command works in: `--root`/ANVIL_ROOT when given (resolved from `cwd`), else the nearest marked folder. */
export const projectRootOfSync = (cwd: string, given: string | undefined): string =>
  given ? resolve(cwd, given) : findProjectRootSync(cwd)

/** {@link findProjectRootSync} as an Effect. */
export const findProjectRoot = (cwd: string) => Effect.sync(() => findProjectRootSync(cwd))

/** {@link projectRootOfSync} as an Effect. */
export const projectRootOf = (cwd: string, given: string | undefined) => Effect.sync(() => projectRootOfSync(cwd, given))
