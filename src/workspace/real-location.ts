import { readlinkSync, realpathSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"

/**
 * Where an absolute path really leads, synchronously: every existing link on
 * the way followed, the part that does not exist yet appended as given, and a
 * dangling last link judged by its target. What the permission rules must also
 * see: a rule about a file holds whatever link names it.
 */
export const realLocation = (absolute: string): string => {
  const rest: Array<string> = []
  let current = absolute
  for (;;) {
    try {
      const found = realpathSync(current)
      return rest.length === 0 ? found : join(found, ...rest.reverse())
    } catch {
      if (rest.length === 0) {
        const target = linkTarget(current)
        if (target !== undefined) return isAbsolute(target) ? target : resolve(realLocation(dirname(current)), target)
      }
      const parent = dirname(current)
      if (parent === current) return absolute
      rest.push(current.slice(parent.length).replace(/^[\\/]/, ""))
      current = parent
    }
  }
}

const linkTarget = (p: string): string | undefined => {
  try {
    return readlinkSync(p)
  } catch {
    return undefined
  }
}
