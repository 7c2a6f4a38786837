/**
 * The repositories a read of a work tree makes git enter: `git status` and `git diff` run a `git status` of
 * their own inside every populated submodule, and in every repository committed as a gitlink without
 * .gitmodules, to tell whether it is dirty, and that git obeys the repository's own config (its filter
 * drivers). Found from the index files themselves, without a process and without node:fs: an index with no
 * gitlink entry (the common case) costs one map and one native byte search.
 */

import { decodePath } from "../workspace/path-bytes.ts"

/**
 * The last two bytes of a gitlink entry's mode (0o160000 is 00 00 e0 00 in the index), searched before any parse;
 * the two zeros before are checked by hand: a needle that starts with a zero byte, common in an index, made the
 * search 1.5 ms on a 20,000-file index against 0.3 ms this way.
 */
const GITLINK_MODE_END = Uint8Array.of(0xe0, 0)
/** The split-index extension's signature: its entries live in a shared index the byte search must see too. */
const LINK_EXTENSION = Uint8Array.of(0x6c, 0x69, 0x6e, 0x6b)
/** Beyond this many repositories the answer is "cannot tell" (the caller refuses), never a partial list. */
const MAX_REPOSITORIES = 500

const indexOf = (bytes: Uint8Array, what: Uint8Array, from: number): number => Buffer.prototype.indexOf.call(bytes, what, from)

/** Whether the bytes may hold a gitlink entry (or a split index's extension): false only when they cannot. */
const mayLink = (b: Uint8Array): boolean => {
  for (let at = indexOf(b, GITLINK_MODE_END, 2); at >= 0; at = indexOf(b, GITLINK_MODE_END, at + 1)) {
    if (b[at - 1] === 0 && b[at - 2] === 0) return true
  }
  return indexOf(b, LINK_EXTENSION, 0) >= 0
}

/** A file's bytes (mapped), an empty array for an empty file, or the error code that kept it from being read. */
const mapped = (path: string): Uint8Array | string => {
  try {
    return Bun.mmap(path)
  } catch (e) {
    const code = (e as { code?: string }).code ?? "EIO"
    return code === "EINVAL" ? new Uint8Array(0) : code
  }
}

const be32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

/**
 * The git folder of the work tree `work`: its `.git` folder, or the folder a `.git` file names; null when
 * `work` holds no `.git` (git does not enter it); undefined when that cannot be told.
 */
export const gitDirOf = (work: string): string | null | undefined => {
  const dotGit = mapped(`${work}/.git`)
  if (dotGit === "EISDIR") return `${work}/.git`
  if (dotGit === "ENOENT" || dotGit === "ENOTDIR") return null
  if (typeof dotGit === "string") return undefined
  const text = new TextDecoder().decode(dotGit)
  const match = /^gitdir: *(.+?)\r?\n?$/.exec(text)
  if (match === null) return null
  return match[1]!.startsWith("/") ? match[1]! : `${work}/${match[1]}`
}

interface IndexLinks {
  readonly paths: ReadonlyArray<string>
  /** The shared index's name when the index is split. */
  readonly shared: string | undefined
}

/**
 * The gitlink paths of an index (versions 2 to 4) whose object names are `hashSize` bytes, or undefined when it is
 * not one this reads: its entries and extensions must end exactly at its closing checksum.
 */
const indexLinksOf = (b: Uint8Array, hashSize: number): IndexLinks | undefined => {
  if (b.length < 12 || b[0] !== 0x44 || b[1] !== 0x49 || b[2] !== 0x52 || b[3] !== 0x43) return undefined
  const version = be32(b, 4)
  if (version < 2 || version > 4) return undefined
  const count = be32(b, 8)
  const paths: Array<string> = []
  let off = 12
  let previous: Uint8Array = new Uint8Array(0)
  for (let k = 0; k < count; k++) {
    const fixed = 42 + hashSize
    if (off + fixed > b.length) return undefined
    const mode = be32(b, off + 24)
    const flags = (b[off + fixed - 2]! << 8) | b[off + fixed - 1]!
    let at = off + fixed + (version >= 3 && (flags & 0x4000) !== 0 ? 2 : 0)
    let name: Uint8Array
    if (version === 4) {
      // The name is the previous one less `strip` bytes, then this entry's suffix (git's offset varint).
      let byte = b[at++]!
      let strip = byte & 127
      while ((byte & 128) !== 0) {
        byte = b[at++]!
        strip = ((strip + 1) << 7) | (byte & 127)
      }
      const end = b.indexOf(0, at)
      if (end < 0 || strip > previous.length) return undefined
      name = new Uint8Array(previous.length - strip + end - at)
      name.set(previous.subarray(0, previous.length - strip))
      name.set(b.subarray(at, end), previous.length - strip)
      previous = name
      off = end + 1
    } else {
      const end = b.indexOf(0, at)
      if (end < 0) return undefined
      name = b.subarray(at, end)
      off += ((end - off) + 8) & ~7
    }
    if ((mode & 0xf000) === 0xe000) paths.push(decodePath(name))
  }
  let shared: string | undefined
  let at = off
  for (; at + 8 <= b.length - hashSize; at += 8 + be32(b, at + 4)) {
    if (b[at] === 0x6c && b[at + 1] === 0x69 && b[at + 2] === 0x6e && b[at + 3] === 0x6b) {
      shared = Array.from(b.subarray(at + 8, at + 8 + hashSize), (x) => x.toString(16).padStart(2, "0")).join("")
    }
  }
  return at === b.length - hashSize ? { paths, shared } : undefined
}

/** An index read as SHA-1's (20-byte names), else as SHA-256's (32): the one whose layout holds to the end. */
const indexLinks = (b: Uint8Array): IndexLinks | undefined => indexLinksOf(b, 20) ?? indexLinksOf(b, 32)

/**
 * The work trees of every repository git enters from the one at `top` (whose index is `index`), nested ones
 * too, as absolute paths; undefined when that cannot be told (an index this does not read, a `.git` that
 * cannot be opened, too many): the caller then refuses the read rather than run what it cannot see.
 */
export const enteredRepositories = (top: string, index: string, topGitDir: string): ReadonlyArray<string> | undefined => {
  const out: Array<string> = []
  const seen = new Set<string>([topGitDir])
  const queue: Array<{ readonly work: string; readonly index: string; readonly gitDir: string }> = [{ work: top, index, gitDir: topGitDir }]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const files = [mapped(next.index)]
    for (let i = 0; i < files.length; i++) {
      const bytes = files[i]!
      if (bytes === "ENOENT") continue
      if (typeof bytes === "string") return undefined
      if (!mayLink(bytes)) continue
      const links = indexLinks(bytes)
      if (links === undefined) return undefined
      if (links.shared !== undefined && i === 0) files.push(mapped(`${next.gitDir}/sharedindex.${links.shared}`))
      for (const path of links.paths) {
        const work = `${next.work}/${path}`
        const gitDir = gitDirOf(work)
        if (gitDir === null) continue
        if (gitDir === undefined || out.length >= MAX_REPOSITORIES) return undefined
        if (seen.has(gitDir)) continue
        seen.add(gitDir)
        out.push(work)
        queue.push({ work, index: `${gitDir}/index`, gitDir })
      }
    }
  }
  return out
}
