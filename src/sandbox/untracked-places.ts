import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs"
import { basename, dirname, join, relative, resolve, sep } from "node:path"
import { inside, isDir, real } from "./protected-paths.ts"

/**
 * The checkout `root` is in — the project may be a folder of a larger repository — as its top folder and git folder
 * (`.git` itself, or where a `.git` file points), if any.
 */
const checkoutOf = (root: string): { readonly top: string; readonly gitDir: string } | undefined => {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git")
    if (isDir(dotGit)) return { top: dir, gitDir: dotGit }
    try {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
      if (m) return { top: dir, gitDir: resolve(dir, m[1]!.trim()) }
    } catch {
      // no .git file here: look further up
    }
    if (dirname(dir) === dir) return undefined
  }
}

/** An index larger than this is not searched: every place counts as tracked (nothing is hidden by mistake). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024

/** The last index read, by file and stat: each command's start needs it, and it changes only when git writes it. */
let lastIndex: { readonly file: string; readonly key: string; readonly names: Buffer | undefined } | undefined

/**
 * The git index's bytes when they name every tracked path in full (versions 2 and 3), else undefined: version 4
 * shortens names against the one before, and a split index keeps entries in another file.
 */
const indexNames = (gitDir: string): Buffer | undefined => {
  const file = join(gitDir, "index")
  let key: string
  try {
    const st = statSync(file)
    // git replaces the index by renaming a new file over it: a new inode, times and size.
    key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
  } catch {
    key = "none"
  }
  if (lastIndex?.file === file && lastIndex.key === key) return lastIndex.names
  const names = readIndexNames(gitDir, file)
  lastIndex = { file, key, names }
  return names
}

const readIndexNames = (gitDir: string, file: string): Buffer | undefined => {
  try {
    if (statSync(file).size > MAX_INDEX_BYTES) return undefined
    const fd = openSync(file, "r")
    try {
      const head = Buffer.alloc(8)
      readSync(fd, head, 0, 8, 0)
      const version = head.readUInt32BE(4)
      if (head.toString("latin1", 0, 4) !== "DIRC" || (version !== 2 && version !== 3)) return undefined
    } finally {
      closeSync(fd)
    }
    // A split index keeps its entries in sharedindex.* files beside it.
    return readdirSync(gitDir).some((n) => n.startsWith("sharedindex.")) ? undefined : readFileSync(file)
  } catch (e) {
    // No index: nothing is tracked yet.
    return (e as { code?: string }).code === "ENOENT" ? Buffer.alloc(0) : undefined
  }
}

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

/**
 * The places among `paths` (absolute) that exist, do not lead out of the project through a link in it, are no git
 * folder (a command's git would stop: "not a git repository") and where git tracks nothing, as real paths with the
 * path each was given as: what the sandbox may lay an empty file or folder over without a command's
 * `git add -A` or `git commit -a` recording tracked files as deleted (and a tracked file's text is in the object
 * store, which `git show HEAD:file` reads anyway). A place is taken as tracked when the index holds its root-relative name (a file's, ended by the NUL
 * after it; a folder's, followed by a slash) anywhere — a name elsewhere that merely ends the same keeps it visible,
 * never the other way round — and when the index cannot be read that way, every place in the project is.
 */
export const untrackedPlaces = (root: string, paths: ReadonlyArray<string>): ReadonlyArray<{ readonly path: string; readonly given: string; readonly dir: boolean }> => {
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
  const names = checkout === undefined ? Buffer.alloc(0) : indexNames(checkout.gitDir)
  const gitDir = checkout === undefined ? undefined : (real(checkout.gitDir) ?? checkout.gitDir)
  return found.filter(({ path: p, dir }) => {
    if (gitPlace(p, rootReal, gitDir)) return false
    if (!inside(p, rootReal) || p === rootReal) return true
    if (names === undefined) return false
    // Index names are relative to the checkout's top.
    const rel = relative(checkout?.top ?? rootReal, p).split(sep).join("/")
    return !names.includes(dir ? `${rel}/` : `${rel}\0`)
  })
}
