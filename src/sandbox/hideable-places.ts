import { lstatSync } from "node:fs"
import { basename, dirname, join, relative, sep } from "node:path"
import { inside, isDir, real } from "./protected-paths.ts"
import { checkoutOf, indexFileOf, trackedIn, trackedPaths, type TrackedPaths } from "./tracked-index.ts"

/**
 * Where each path really is, and whether it is a folder: a path that is no link is its real folder's entry, so a
 * folder's thousand files cost a thousand lstat calls and one realpath, not a thousand realpath calls (each walks
 * every component of the path).
 */
const realPlaces = () => {
  const folders = new Map<string, string | undefined>()
  return (given: string): { readonly path: string; readonly dir: boolean } | undefined => {
    const parent = dirname(given)
    try {
      const st = lstatSync(given)
      if (!st.isSymbolicLink() && parent !== given) {
        if (!folders.has(parent)) folders.set(parent, real(parent))
        const at = folders.get(parent)
        return at === undefined ? undefined : { path: join(at, basename(given)), dir: st.isDirectory() }
      }
    } catch {
      return undefined
    }
    const r = real(given)
    return r === undefined ? undefined : { path: r, dir: isDir(r) }
  }
}

/** Whether `p` (real) is a git folder or the `.git` entry of a checkout, or lies in one: git needs it to run at all. */
const gitPlace = (p: string, rootReal: string, gitDir: string | undefined): boolean =>
  (gitDir !== undefined && (inside(p, gitDir) || inside(gitDir, p))) || (inside(p, rootReal) && relative(rootReal, p).split(sep).includes(".git"))

/** A tracked path inside a hidden folder, made again inside it (see {@link hideablePlaces}). */
export interface TrackedStandIn {
  readonly path: string
  /** A submodule gets an empty folder; a file or link the device file /dev/null. */
  readonly kind: "file" | "dir"
}

/** A place the sandbox may hide: its real path, the path it was given as, and for a folder what git tracks in it. */
export interface HideablePlace {
  readonly path: string
  readonly given: string
  readonly dir: boolean
  /** For a folder, the tracked paths in it (none for a file); undefined when the index cannot be read. */
  readonly tracked: ReadonlyArray<TrackedStandIn> | undefined
}

/**
 * The places among `paths` (absolute) that exist, do not lead out of the project through a link in it and are no
 * git folder (a command's git would stop: "not a git repository"), as real paths with the path each was given as.
 * A tracked file is hidden as an untracked one is (the device file /dev/null over it), which git sees changed in type
 * and refuses to stage ("can only add regular files"), never as emptied; a folder comes with the paths git tracks in
 * it, which the sandbox makes again inside the empty folder it lays there, so that a command's `git add -A` or
 * `git commit -a` stops at them rather than recording them as deleted. The index read is the one git uses
 * (GIT_INDEX_FILE in `env`, else the git folder's); when it cannot be read (a split index, over 64 MiB) a folder's
 * tracked paths are unknown.
 */
export const hideablePlaces = (root: string, paths: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}): ReadonlyArray<HideablePlace> => {
  const rootReal = real(root) ?? root
  const realOf = realPlaces()
  // A link in the project that leads out of it is left visible: the rule names the link, and hiding where it leads
  // would hide that from every command under every name (a link to /usr, and no command starts).
  const found = paths.flatMap((given) => {
    const r = realOf(given)
    return r === undefined || ((inside(given, root) || inside(given, rootReal)) && !inside(r.path, rootReal)) ? [] : [{ ...r, given }]
  })
  if (found.length === 0) return []
  const checkout = checkoutOf(rootReal)
  const gitDir = checkout === undefined ? undefined : (real(checkout.gitDir) ?? checkout.gitDir)
  let index: { readonly tracked: TrackedPaths } | undefined
  const trackedOf = (p: string): HideablePlace["tracked"] => {
    if (checkout === undefined || !inside(p, checkout.top) || p === checkout.top) return []
    const tracked = (index ??= { tracked: trackedPaths(indexFileOf(checkout, env), checkout.gitDir) }).tracked
    if (tracked === undefined) return undefined
    // Index names are relative to the checkout's top.
    const rel = relative(checkout.top, p).split(sep).join("/")
    return trackedIn(tracked, rel).map((t) => ({ path: join(checkout.top, ...t.rel.split("/")), kind: t.gitlink ? "dir" : "file" }))
  }
  return found.flatMap(({ path: p, dir, given }) => (gitPlace(p, rootReal, gitDir) ? [] : [{ path: p, given, dir, tracked: dir ? trackedOf(p) : [] }]))
}
