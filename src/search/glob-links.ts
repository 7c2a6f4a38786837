import { lstatSync, statSync } from "node:fs"
import { fsPath } from "../workspace/path-bytes.ts"

/**
 * Symbolic links to folders in a glob. The walk never goes into a link (no
 * loops, no way out of the project), as ripgrep without --follow and the
 * built-in grep; two things bash does are still kept, since a person names a
 * link the way list shows it (`name@/`):
 * - a folders pattern (`*\/`) lists a link to a folder as a folder (`docs/`);
 * - a pattern whose leading literal folders pass through a link (`docs/*.md`,
 *   `docs/api/**`) is searched from that link as `path` would be, so it is
 *   followed only when it leads to a folder inside the project, and refused
 *   as `path` is otherwise.
 */

const GLOB_SYNTAX = /[*?[\]{}\\!]/

/** Whether an absolute path is a symbolic link (not followed). */
const isLink = (path: string): boolean => {
  try {
    return lstatSync(fsPath(path)).isSymbolicLink()
  } catch {
    return false
  }
}

/** Whether an absolute path leads to a folder (links followed). */
export const leadsToFolder = (path: string): boolean => {
  try {
    return statSync(fsPath(path)).isDirectory()
  } catch {
    return false
  }
}

/**
 * The pattern's leading literal folders up to and including the first that is
 * a symbolic link under `start` (`{ through: "docs", rest: "*.md" }`), or
 * undefined when no such link is on the way (the usual case: one lstat per
 * literal folder, none for a pattern that starts with a wildcard).
 */
export const throughLink = (pattern: string, start: string): { readonly through: string; readonly rest: string } | undefined => {
  const segments = pattern.replace(/^(\.\/)+/, "").split("/")
  const sep = start.endsWith("/") ? "" : "/"
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!
    if (segment === "" || segment === "." || segment === ".." || GLOB_SYNTAX.test(segment)) return undefined
    const through = segments.slice(0, i + 1).join("/")
    if (isLink(start + sep + through)) {
      const rest = segments.slice(i + 1).join("/")
      return rest === "" || rest === "/" ? undefined : { through, rest }
    }
  }
  return undefined
}
