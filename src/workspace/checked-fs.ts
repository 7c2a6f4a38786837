import { Data } from "effect"
import { accessSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, unlinkSync, type BigIntStats, type Dirent } from "node:fs"
import { basename as nativeBasename, dirname as nativeDirname, isAbsolute, resolve as nativeResolve } from "node:path"
import { basenameKeeping, decodePath, dirnameKeeping, fsPath, resolveKeeping } from "./path-bytes.ts"

// Path steps that keep the escaped bytes of a name that is not UTF-8 (path-bytes.ts).
const dirname = (p: string) => dirnameKeeping(p, nativeDirname)
const basename = (p: string) => basenameKeeping(p, nativeBasename)
const resolve = (from: string, to?: string) => (to === undefined ? resolveKeeping("/", from, nativeResolve) : resolveKeeping(from, to, nativeResolve))
const join = (dir: string, name: string) => resolveKeeping(dir, name, nativeResolve)

/**
 * File access that checks where a path really leads at the moment it is used.
 * A path checked first and opened later can be swapped for a
 * symbolic link in between; here every file or folder is opened first and the
 * opened descriptor's real place (/proc/self/fd) is compared with the allowed
 * folders before a byte goes through it. Changes inside a folder go through
 * `/proc/self/fd/<dir>/<name>`, which the kernel resolves to the folder that
 * was opened and checked, whatever its path points at by then.
 *
 * Synchronous on purpose: each call is a handful of system calls, and no
 * other fiber may run between a check and the use it guards.
 */

/** Whether a real absolute path is inside the root or an allowed folder. */
export type Contains = (real: string) => boolean

/** The path leads outside the allowed folders. */
export class OutsideRoot extends Data.TaggedError("OutsideRoot")<{ readonly path: string; readonly real: string }> {}

/** Not a regular file or folder where one was needed, or a link that leads nowhere. */
export class NotUsable extends Data.TaggedError("NotUsable")<{ readonly path: string; readonly reason: string }> {}

const PROC_FD = existsSync("/proc/self/fd")
/** Whether an open descriptor can be named as a path (`/proc/self/fd/N`, see {@link fdPath}). */
export const hasFdPaths = PROC_FD
const MAX_HOPS = 40

/**
 * The real path of an open descriptor (`fallback`'s real path where there is
 * no /proc: a wider race, still checked). A name that is not UTF-8 keeps its
 * bytes escaped (path-bytes.ts), as the paths it is compared with do.
 */
export const realOfFd = (fd: number, fallback: string): string =>
  PROC_FD
    ? decodePath(readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" })).replace(/ \(deleted\)$/, "")
    : decodePath(realpathSync(fsPath(fallback), { encoding: "buffer" }))

/** An open folder whose real place was checked. */
export interface CheckedDir {
  readonly fd: number
  readonly real: string
}

/** A name inside a checked folder, as a path the kernel resolves through the open folder (its bytes for a name that is not UTF-8). */
export const inDir = (dir: CheckedDir, name: string): string | Buffer => fsPath(PROC_FD ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.real, name))

export const closeQuietly = (fd: number | undefined): void => {
  if (fd === undefined) return
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
}

const errno = (e: unknown): string | undefined => (e as { code?: unknown })?.code as string | undefined

/** Opens a folder (following links) and checks where it really is; with `create`, missing folders are made one at a time inside checked parents. */
export const openCheckedDir = (
  contains: Contains,
  absolute: string,
  options: { readonly create?: boolean; readonly created?: Array<string> } = {},
): CheckedDir => {
  let fd: number
  try {
    fd = openSync(fsPath(absolute), constants.O_RDONLY | constants.O_DIRECTORY)
  } catch (e) {
    if (errno(e) !== "ENOENT" || !options.create || dirname(absolute) === absolute) throw e
    const parent = openCheckedDir(contains, dirname(absolute), options)
    try {
      const child = inDir(parent, basename(absolute))
      try {
        mkdirSync(child, { mode: 0o777 })
        options.created?.push(join(parent.real, basename(absolute)))
      } catch (m) {
        if (errno(m) !== "EEXIST") throw m
      }
      // The folder just made (or raced into place) must not be a link.
      fd = openSync(child, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    } finally {
      closeQuietly(parent.fd)
    }
  }
  const real = realOfFd(fd, absolute)
  if (!contains(real)) {
    closeQuietly(fd)
    throw new OutsideRoot({ path: absolute, real })
  }
  return { fd, real }
}

/** An open file whose real place was checked. */
export interface CheckedFile {
  readonly fd: number
  readonly real: string
  readonly stat: BigIntStats
}

/**
 * Opens a file for reading, following links, and checks where it really is.
 * Opens without blocking (a FIFO swapped in cannot hang the call) and only
 * hands back regular files unless `anyType`.
 */
export const openCheckedFile = (contains: Contains, absolute: string): CheckedFile => {
  const fd = openSync(fsPath(absolute), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    const real = realOfFd(fd, absolute)
    if (!contains(real)) throw new OutsideRoot({ path: absolute, real })
    const stat = fstatSync(fd, { bigint: true })
    return { fd, real, stat }
  } catch (e) {
    closeQuietly(fd)
    throw e
  }
}

/**
 * The content of the regular file at `absolute` (links followed, its real place checked with `contains`, opened
 * without blocking), when it is at most `maxBytes`; undefined for anything else (gone, outside, a FIFO or device
 * swapped in, too large).
 */
export const readCheckedFile = (contains: Contains, absolute: string, maxBytes: number): Uint8Array | undefined => {
  let file: CheckedFile | undefined
  try {
    file = openCheckedFile(contains, absolute)
    const size = Number(file.stat.size)
    return file.stat.isFile() && size <= maxBytes ? readAllFd(file.fd, size) : undefined
  } catch {
    return undefined
  } finally {
    closeQuietly(file?.fd)
  }
}

/** Reads a whole open file from its start. */
export const readAllFd = (fd: number, size: number): Uint8Array => {
  const buffer = new Uint8Array(size)
  let got = 0
  while (got < size) {
    const n = readSync(fd, buffer, got, size - got, got)
    if (n === 0) break
    got += n
  }
  return got === size ? buffer : buffer.subarray(0, got)
}

/** Where a file that is about to be written really lives: a checked folder and a name in it. */
export interface WriteSlot {
  readonly dir: CheckedDir
  readonly name: string
  /** Real absolute path of the file. */
  readonly real: string
}

/**
 * Finds the folder and name a write to `absolute` lands on. A final link is
 * followed (a link inside the project that points inside is written through),
 * each hop checked; a link out of the allowed folders, dangling or not, is
 * OutsideRoot. Missing folders are created with `create`.
 */
export const locateForWrite = (
  contains: Contains,
  absolute: string,
  options: { readonly create?: boolean; readonly created?: Array<string> } = {},
): WriteSlot => {
  let current = absolute
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    if (!contains(current)) throw new OutsideRoot({ path: absolute, real: current })
    const dir = openCheckedDir(contains, dirname(current), options)
    const name = basename(current)
    let link: string | undefined
    try {
      const st = lstatSync(inDir(dir, name))
      if (st.isSymbolicLink()) link = decodePath(readlinkSync(inDir(dir, name), { encoding: "buffer" }))
    } catch (e) {
      if (errno(e) !== "ENOENT") {
        closeQuietly(dir.fd)
        throw e
      }
    }
    if (link === undefined) return { dir, name, real: join(dir.real, name) }
    closeQuietly(dir.fd)
    current = isAbsolute(link) ? resolve(link) : resolve(dir.real, link)
  }
  throw new NotUsable({ path: absolute, reason: "symbolic link loop" })
}

/** A file's identity and version: device, inode, size, modification and change times (nanoseconds). */
export const stampOf = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`

/**
 * Whether this user may not write the open file: no write bit at all, or (not root) no write access. Such a file
 * is left alone by the file tools although temp + rename could replace it (root could even write it): that is
 * how a person marks a file not to be changed (generated code, a pinned config).
 */
export const notWritable = (fd: number, mode: number): boolean => {
  if ((mode & 0o222) === 0) return true
  if (process.getuid?.() === 0) return false
  try {
    accessSync(fdPath(fd), constants.W_OK)
    return false
  } catch (e) {
    return (e as { code?: string }).code === "EACCES"
  }
}

/** How a refusal names a file {@link notWritable} found, what would let it change, and the command for that. */
export const notWritableWhy = (display: string, mode: number, uid: number): { readonly reason: string; readonly advice: string; readonly command: string } => {
  const bits = (mode & 0o7777).toString(8).padStart(4, "0")
  const quoted = `'${display.replace(/'/g, "'\\''")}'`
  return (mode & 0o222) === 0
    ? { reason: `${display} is read-only (mode ${bits})`, advice: " If it should change, make it writable first (chmod u+w), then retry.", command: `chmod u+w ${quoted}` }
    : { reason: `${display} is not writable by this user (mode ${bits}, owner uid ${uid})`, advice: "", command: `ls -l ${quoted}` }
}

/** A path the kernel resolves to the open descriptor itself (`/proc/self/fd/N`). */
export const fdPath = (fd: number): string => `/proc/self/fd/${fd}`

/** The kind of a directory entry, named as the Effect file system names it. */
export const direntType = (d: EntryKind): "File" | "Directory" | "SymbolicLink" | "FIFO" | "Socket" | "BlockDevice" | "CharacterDevice" | "Unknown" =>
  d.isFile()
    ? "File"
    : d.isDirectory()
      ? "Directory"
      : d.isSymbolicLink()
        ? "SymbolicLink"
        : d.isFIFO()
          ? "FIFO"
          : d.isSocket()
            ? "Socket"
            : d.isBlockDevice()
              ? "BlockDevice"
              : d.isCharacterDevice()
                ? "CharacterDevice"
                : "Unknown"

/** What a listing says of an entry's kind (a Dirent, or the Stats of an lstat). */
export type EntryKind = Pick<Dirent, "isFile" | "isDirectory" | "isSymbolicLink" | "isFIFO" | "isSocket" | "isBlockDevice" | "isCharacterDevice">

/**
 * A folder's entries (`readdirSync` with file types); a name that is not
 * UTF-8 comes back with its bytes escaped (path-bytes.ts) instead of U+FFFD,
 * so it can be opened again. Only a listing with such a name is read by bytes
 * (the runtime gives no file types then: each entry is lstat'ed).
 */
export const readDirKeeping = (dir: string): Array<{ readonly name: string; readonly dirent: EntryKind }> => {
  const entries = readdirSync(fsPath(dir), { withFileTypes: true })
  if (!entries.some((d) => d.name.includes("\uFFFD"))) return entries.map((d) => ({ name: d.name, dirent: d }))
  const at = Buffer.from(dir.endsWith("/") ? fsPath(dir) : Buffer.concat([Buffer.from(fsPath(dir)), Buffer.from("/")]))
  const names = readdirSync(fsPath(dir), { encoding: "buffer" }) as unknown as Array<Buffer>
  return names.flatMap((name) => {
    const st = lstatSync(Buffer.concat([at, name]), { throwIfNoEntry: false })
    // Removed since it was listed: left out, as a later listing would.
    return st === undefined ? [] : [{ name: decodePath(name), dirent: st }]
  })
}

/** The kind of what a path leads to (links followed), by its bytes: for a path the platform's calls cannot name. */
export const kindOfPath = (path: string): "File" | "Directory" | "Other" => {
  const st = statSync(fsPath(path))
  return st.isFile() ? "File" : st.isDirectory() ? "Directory" : "Other"
}

/** The first `max` bytes of a file, by its path's bytes. */
export const headOfPath = (path: string, max: number): Uint8Array => {
  const fd = openSync(fsPath(path), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    return readAllFd(fd, Math.min(max, fstatSync(fd).size))
  } finally {
    closeQuietly(fd)
  }
}

/** What kind of file a stat describes, for messages. */
export const fileTypeName = (st: BigIntStats): string =>
  st.isFIFO() ? "FIFO" : st.isSocket() ? "Socket" : st.isCharacterDevice() ? "CharacterDevice" : st.isBlockDevice() ? "BlockDevice" : st.isSymbolicLink() ? "SymbolicLink" : st.isDirectory() ? "Directory" : "Unknown"

/**
 * Whether `expected` (a real absolute path) still names the same regular file
 * it did: opened without following a last link, and the descriptor's real
 * place is `expected` itself (no folder on the way was swapped for a link).
 * `openAs`: the path's bytes when its name is not UTF-8 (`expected` then
 * holds replacement characters, as the descriptor's place reads back).
 */
export const stillAt = (expected: string, openAs: string | Buffer = fsPath(expected)): boolean => {
  let fd: number | undefined
  try {
    fd = openSync(openAs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
    return realOfFd(fd, expected) === expected
  } catch {
    return false
  } finally {
    closeQuietly(fd)
  }
}

/**
 * Opens the regular file at `expected` (a real absolute path) if it still is there (`stillAt`'s rules), without
 * blocking (a FIFO swapped in is no regular file); its descriptor, which the caller closes, or undefined.
 */
export const openStillAt = (expected: string, openAs: string | Buffer = fsPath(expected)): number | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(openAs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
    if (realOfFd(fd, expected) === expected && fstatSync(fd).isFile()) return fd
  } catch {
    // gone, or not openable: undefined
  }
  closeQuietly(fd)
  return undefined
}

/**
 * Reads the file at `expected` (a real absolute path) if it still is there
 * ({@link openStillAt}) and is at most `maxBytes`; undefined otherwise, "large"
 * when it is bigger. What a search found in it can then be compared with what
 * it holds now.
 */
export const readStillAt = (expected: string, maxBytes: number, openAs: string | Buffer = fsPath(expected)): Uint8Array | "large" | undefined => {
  const fd = openStillAt(expected, openAs)
  if (fd === undefined) return undefined
  try {
    const size = fstatSync(fd).size
    return size > maxBytes ? "large" : readAllFd(fd, size)
  } catch {
    return undefined
  } finally {
    closeQuietly(fd)
  }
}

/** Removes a file if it is there; whether it was. */
export const unlinkQuietly = (path: string | Buffer): boolean => {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}
