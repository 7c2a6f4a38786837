import { accessSync, constants } from "node:fs"

const found = new Map<string, string | undefined>()

/**
 * The first of `paths` that can be run (a system program anvil itself starts: util-linux prlimit, env),
 * looked up once per list; undefined where none is installed.
 */
export const installedProgram = (paths: ReadonlyArray<string>): string | undefined => {
  const key = paths.join("\0")
  if (!found.has(key)) {
    found.set(
      key,
      paths.find((p) => {
        try {
          accessSync(p, constants.X_OK)
          return true
        } catch {
          return false
        }
      }),
    )
  }
  return found.get(key)
}
