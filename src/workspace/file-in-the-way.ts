import { statSync } from "node:fs"
import { dirname } from "node:path"

/**
 * Where a path that is not there stops: the nearest thing above it that exists. When that is a file, it stands where
 * one of the path's folders should be (`a.txt` for `a.txt/b/c.txt`: why the path can neither be found nor made,
 * ENOTDIR), and the folder to look in is the one holding it; else the folder to look in is that nearest folder.
 * `depth` counts the components between `absolute` and it.
 */
const nearestExisting = (absolute: string): { readonly depth: number; readonly file: boolean } | undefined => {
  let depth = 1
  for (let at = dirname(absolute); at !== dirname(at); at = dirname(at), depth++) {
    try {
      return { depth, file: !statSync(at).isDirectory() }
    } catch (e) {
      const code = (e as { code?: unknown }).code
      if (code !== "ENOENT" && code !== "ENOTDIR") return undefined
    }
  }
  return undefined
}

/** What a path that is not there runs into, as results name it (root-relative). */
export interface PathStop {
  /** The file standing where a folder of the path should be, if one does. */
  readonly inTheWay?: string
  /** The folder whose listing shows what is there instead ("." at the top). */
  readonly folder: string
}

/**
 * {@link nearestExisting} for `absolute`, shown as `shown` (root-relative): `shown` cut to the component that
 * exists. Undefined when that cannot be told (a quoted or absolute `shown`, a path outside the root's reach).
 */
export const pathStop = (absolute: string, shown: string): PathStop | undefined => {
  if (shown.startsWith('"') || shown.startsWith("/")) return undefined
  const near = nearestExisting(absolute)
  const parts = shown.split("/")
  if (near === undefined || near.depth > parts.length) return undefined
  const kept = parts.slice(0, parts.length - near.depth)
  const shownAt = kept.length === 0 ? "." : kept.join("/")
  return near.file ? { inTheWay: shownAt, folder: folderOf(shownAt) } : { folder: shownAt }
}

/** {@link pathStop} as optional fields of a domain error: `{ inTheWay, folder }`, or nothing. */
export const pathStopOf = (absolute: string, shown: string): Partial<PathStop> => pathStop(absolute, shown) ?? {}

/** How a "not found" says why, when a file stands in the path's way ("" when none does). */
export const inTheWayNote = (inTheWay: string | undefined): string => (inTheWay === undefined ? "" : ` (${inTheWay} is a file, not a folder)`)

/** The folder that holds a root-relative path ("." at the top). */
export const folderOf = (shown: string): string => (shown.includes("/") ? shown.slice(0, shown.lastIndexOf("/")) : ".")
