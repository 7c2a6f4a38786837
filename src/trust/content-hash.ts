import { createHash } from "node:crypto"
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs"
import type { Hash } from "node:crypto"

/**
 * What a trust decision covers. Trust is given to content, not to a name: a
 * change to any byte asks again.
 * - `path`: a file, or a folder hashed whole (every file under it, by relative
 *   path, bytes and whether it may be executed; a symbolic link by its target text and what it leads to —
 *   a file's bytes, a folder's files — since loading a plugin reads through it,
 *   so a link to a file elsewhere in the repository would otherwise let a
 *   change there run without asking). Only `.git` folders are skipped. Installed packages
 *   (`node_modules`) and lockfiles count like any file: the bundle of a folder plugin is made from its
 *   node_modules, a hook's script may require any file in them, and a hook that installs packages
 *   installs what the lockfile names, so a change to any of them may run new code. The execute bits count
 *   because a hook names a script it runs: making it executable lets code run that could not before;
 *   `with` is text that decides what the folder runs without living in it (a Claude Code plugin's marketplace
 *   entry standing in for its plugin.json), hashed after the files so a change to it asks again too;
 * - `text`: a value that is not a file, e.g. an MCP server's command line as JSON.
 */
export type TrustContent = { readonly path: string; readonly with?: string } | { readonly text: string }

/**
 * Folders larger than this are refused rather than read for minutes (a plugin's node_modules counts). Every start
 * looks at each file's metadata once (0.14 s of CPU for 21,000 files, more on a busy 2-core machine), so the limit stays short of
 * what a start could not bear.
 */
export const MAX_HASHED_FILES = 30_000

/** A folder that could not be hashed: too many files, or unreadable. */
export class HashProblem {
  readonly _tag = "HashProblem"
  constructor(readonly message: string) {}
}

/** How much of a file is read at once: the hash takes a file in pieces, never whole (a 3 GB file would be held in memory). */
const CHUNK = 1 << 20
let chunk: Buffer | undefined

/**
 * Feeds a file's bytes to `hash`, a piece at a time, up to its end (every byte counts: the hash is what trust is
 * given to). Opened without waiting and checked once open: what is not a regular file by then (a named pipe, a
 * device such as /dev/zero, swapped in since it was looked at) would never end, and is refused.
 */
const hashFile = (hash: Hash, path: string): void => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) throw new HashProblem(`${path} is not a regular file or a folder`)
    chunk ??= Buffer.allocUnsafe(CHUNK)
    for (let n = readSync(fd, chunk, 0, CHUNK, null); n > 0; n = readSync(fd, chunk, 0, CHUNK, null)) hash.update(chunk.subarray(0, n))
  } finally {
    closeSync(fd)
  }
}

/** What a link leads to, or undefined when it leads nowhere. */
const targetOf = (file: string): Stats | undefined => {
  try {
    return statSync(file)
  } catch {
    return undefined
  }
}

/** A file of a folder subject: its path, and its path below the folder with forward slashes (what is hashed). */
interface Listed {
  readonly full: string
  readonly rel: string
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * Everything hashed: files of a folder sorted by relative path (forward slashes). A link to a folder is
 * followed (each real folder once, so a link back up ends there). Paths are built as the walk goes down (no
 * join or relative per file: on a 21,000-file node_modules that was a quarter of the stamp's CPU).
 */
const listFiles = (top: string, installed = true): Array<Listed> => {
  const out: Array<Listed> = []
  const seen = new Set([realpathSync(top)])
  const walk = (dir: string, prefix: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort(byName)
    for (const entry of entries) {
      if (entry.name === ".git" || (!installed && entry.name === "node_modules" && entry.isDirectory())) continue
      const full = `${dir}/${entry.name}`
      const rel = prefix + entry.name
      if (entry.isDirectory()) walk(full, `${rel}/`)
      else {
        out.push({ full, rel })
        if (entry.isSymbolicLink() && targetOf(full)?.isDirectory()) {
          const real = realpathSync(full)
          if (!seen.has(real)) {
            seen.add(real)
            walk(full, `${rel}/`)
          }
        }
      }
      if (out.length > MAX_HASHED_FILES) {
        throw new HashProblem(
          `more than ${MAX_HASHED_FILES} files under ${dir} (installed packages in node_modules count): remove what the plugin does not need, or bundle it into one file`,
        )
      }
    }
  }
  walk(top.length > 1 && top.endsWith("/") ? top.slice(0, -1) : top, "")
  return out
}

/**
 * A mark for a file anyone may execute, before its size: none for the others, so the hash of a folder without
 * executable files (and the trust given to it) stays as it was.
 */
const executable = (info: Stats): string => ((info.mode & 0o111) !== 0 ? "x\0" : "")

/**
 * sha256 of a trust subject's content, as `sha256:<hex>`. Synchronous: it runs
 * once per extension at start-up, and a few thousand small reads are quicker
 * than the scheduling around async ones. Throws {@link HashProblem} (a `path`
 * that is neither a regular file nor a folder among them) or the fs error.
 */
export const hashContent = (content: TrustContent): string => {
  const hash = createHash("sha256")
  if ("text" in content) {
    hash.update("text\0").update(content.text)
    return `sha256:${hash.digest("hex")}`
  }
  // Only content with `with` hashes it, so the hashes of everything else (and the trust given to them) stay as they were.
  const withText = () => (content.with !== undefined ? hash.update("\0with\0").update(content.with) : hash)
  const top = statSync(content.path)
  if (!top.isDirectory()) {
    hash.update("file\0")
    hashFile(hash, content.path)
    return `sha256:${withText().digest("hex")}`
  }
  hash.update("dir\0")
  for (const { full: file, rel } of listFiles(content.path)) {
    const info = lstatSync(file)
    hash.update(rel).update("\0")
    // A link's target text, and the bytes of the file it leads to (a folder's files are listed on their own).
    if (info.isSymbolicLink()) {
      hash.update("link\0").update(readlinkSync(file))
      const target = targetOf(file)
      if (target?.isFile()) {
        hash.update("\0").update(executable(target)).update(String(target.size)).update("\0")
        hashFile(hash, file)
      }
    } else if (info.isFile()) {
      hash.update(executable(info)).update(String(info.size)).update("\0")
      hashFile(hash, file)
    }
    hash.update("\0")
  }
  return `sha256:${withText().digest("hex")}`
}

/**
 * A cheap fingerprint of a `path` subject from metadata only (relative path,
 * size, inode, mtime and ctime of every file). The store keeps it beside the
 * hash so an unchanged folder is not read again at every start. ctime cannot
 * be set back by a program, so rewriting a file in place changes the stamp even
 * when size and mtime are restored. `text` subjects have no stamp. `installed` false leaves node_modules
 * folders out (the key of a folder plugin's bundle, whose own list of inputs covers the packages it read).
 * Each file's line is the one stamps were always made of (a stamp stored in trust.json still matches), fed
 * to the hash in large pieces rather than one call per file.
 */
export const stampContent = (content: TrustContent, installed = true): string | undefined => {
  if ("text" in content) return undefined
  const hash = createHash("sha256")
  let pending = ""
  const add = (file: string, rel: string) => {
    const i = lstatSync(file)
    pending += `${rel}\0${i.size}\0${i.mode}\0${i.ino}\0${i.mtimeMs}\0${i.ctimeMs}\0`
    // A changed file behind a link changes the stamp too, so its new bytes are hashed.
    const t = i.isSymbolicLink() ? targetOf(file) : undefined
    if (t) pending += `->${t.size}\0${t.mode}\0${t.ino}\0${t.mtimeMs}\0${t.ctimeMs}\0`
    if (pending.length > 1 << 16) {
      hash.update(pending)
      pending = ""
    }
  }
  const top = statSync(content.path)
  if (!top.isDirectory()) add(content.path, "")
  else for (const { full, rel } of listFiles(content.path, installed)) add(full, rel)
  hash.update(pending)
  if (content.with !== undefined) hash.update("\0with\0").update(content.with)
  return `stamp:${hash.digest("hex")}`
}

/** stampContent for one start's checks: {@link stampsOnce}. */
export type Stamps = (content: TrustContent) => string | undefined

/**
 * A stampContent that walks each subject once: made for one pass of plugin loading, whose trust check and
 * load-time-out memory both stamp the same folder (a second walk of a 21,000-file node_modules cost as much
 * as the first). A new pass makes a new one, so a file changed since is seen. A walk that failed is not kept.
 */
export const stampsOnce = (): Stamps => {
  const made = new Map<string, string | undefined>()
  return (content) => {
    if ("text" in content) return undefined
    const key = JSON.stringify([content.path, content.with ?? null])
    if (made.has(key)) return made.get(key)
    const stamp = stampContent(content)
    made.set(key, stamp)
    return stamp
  }
}
