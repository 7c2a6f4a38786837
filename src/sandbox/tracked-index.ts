import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { eachIndexEntry } from "../workspace/index-entries.ts"
import { isDir } from "./protected-paths.ts"

/**
 * The checkout `root` is in — the project may be a folder of a larger repository — as its top folder and git folder
 * (`.git` itself, or where a `.git` file points), if any.
 */
export const checkoutOf = (root: string): { readonly top: string; readonly gitDir: string } | undefined => {
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

/** The index git uses in the checkout: GIT_INDEX_FILE (relative ones from the top, as the git tools resolve it), else the git folder's. */
export const indexFileOf = (checkout: { readonly top: string; readonly gitDir: string }, env: Readonly<Record<string, string | undefined>>): string =>
  env.GIT_INDEX_FILE ? resolve(checkout.top, env.GIT_INDEX_FILE) : join(checkout.gitDir, "index")

/** One tracked path: top-relative, its bytes one character each (so strings sort as git sorts them), and whether a submodule. */
interface Tracked {
  readonly name: string
  readonly gitlink: boolean
}

/** What the index says is tracked: its paths sorted as git sorts them; undefined when it cannot be read. */
export type TrackedPaths = ReadonlyArray<Tracked> | undefined

/** An index larger than this is not read: it cannot be known what is tracked (the sandbox then hides no folder). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024

/** The last index read, by file and stat: each command's start needs it, and it changes only when git writes it. */
let lastIndex: { readonly file: string; readonly key: string; readonly tracked: TrackedPaths } | undefined

/**
 * The paths the index `file` of the git folder `gitDir` tracks (versions 2 to 4): none when there is no index yet,
 * undefined when it cannot be read (too large, or a split index, which keeps entries in another file).
 */
export const trackedPaths = (file: string, gitDir: string): TrackedPaths => {
  let key: string
  try {
    const st = statSync(file)
    // git replaces the index by renaming a new file over it: a new inode, times and size.
    key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
  } catch {
    key = "none"
  }
  if (lastIndex?.file === file && lastIndex.key === key) return lastIndex.tracked
  const tracked = readTracked(file, gitDir)
  lastIndex = { file, key, tracked }
  return tracked
}

const readTracked = (file: string, gitDir: string): TrackedPaths => {
  let bytes: Buffer
  try {
    if (statSync(file).size > MAX_INDEX_BYTES) return undefined
    bytes = readFileSync(file)
  } catch (e) {
    // No index: nothing is tracked yet.
    return (e as { code?: string }).code === "ENOENT" ? [] : undefined
  }
  const version = bytes.length >= 8 ? bytes.readUInt32BE(4) : 0
  if (bytes.toString("latin1", 0, 4) !== "DIRC" || version < 2 || version > 4) return undefined
  // A split index keeps its entries in sharedindex.* files in the git folder.
  try {
    if (readdirSync(gitDir).some((n) => n.startsWith("sharedindex."))) return undefined
  } catch {
    return undefined
  }
  const out: Array<Tracked> = []
  eachIndexEntry(bytes, ({ path, stage, mode }) => {
    // A conflicted path has up to three entries: one is enough.
    if (stage > 1) return
    out.push({ name: Buffer.from(path.buffer, path.byteOffset, path.byteLength).toString("latin1"), gitlink: (mode & 0o170000) === 0o160000 })
  })
  return out
}

/** Where the first name not below `name` would stand in the sorted `tracked`. */
const firstAtOrAfter = (tracked: ReadonlyArray<Tracked>, name: string): number => {
  let lo = 0
  let hi = tracked.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (tracked[mid]!.name < name) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A top-relative path (`/`-separated) as the index spells it: its UTF-8 bytes one character each. */
const indexName = (rel: string) => Buffer.from(rel, "utf8").toString("latin1")

/** The tracked paths in the folder `rel` (top-relative), top-relative, with whether each is a submodule. */
export const trackedIn = (tracked: ReadonlyArray<Tracked>, rel: string): ReadonlyArray<{ readonly rel: string; readonly gitlink: boolean }> => {
  const prefix = indexName(`${rel}/`)
  const out: Array<{ readonly rel: string; readonly gitlink: boolean }> = []
  for (let i = firstAtOrAfter(tracked, prefix); i < tracked.length && tracked[i]!.name.startsWith(prefix); i++) {
    out.push({ rel: Buffer.from(tracked[i]!.name, "latin1").toString("utf8"), gitlink: tracked[i]!.gitlink })
  }
  return out
}
