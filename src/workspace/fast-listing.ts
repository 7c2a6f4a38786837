import type * as Ffi from "bun:ffi"
import { constants } from "node:fs"
import type { NameFilter } from "./name-filter.ts"
import { keepBelowTopTier } from "./jit-tier.ts"
import { hasEscapedBytes } from "./path-bytes.ts"

/**
 * Directory listings straight from the kernel, for the walks behind glob and
 * the built-in grep. Node's way to list a folder without following a swapped
 * link costs seven system calls (open, readlink of /proc/self/fd, open of that
 * magic link, two getdents, two closes) and an object per entry; on Linux
 * one `openat2` with RESOLVE_NO_SYMLINKS gives the same guarantee in one call
 * (it fails when any component of the path is a link, so the folder read is
 * the one the real path names, checked at the moment it is opened), then
 * getdents64 fills a reused buffer. About twice as fast on a 57,000-file tree.
 *
 * Anything unusual answers `"fallback"` so the caller lists the folder the
 * portable way: no libc or no openat2 (another OS, an old kernel, a seccomp
 * filter), a file system that does not report entry types, a name that is
 * not valid UTF-8 (the portable reader decides how it is shown).
 */

/** An entry's kind as getdents64 reports it (d_type). */
export type FastEntryType = "File" | "Directory" | "SymbolicLink" | "Other"

export interface FastEntry {
  readonly name: string
  readonly type: FastEntryType
}

type Syscall = (n: number, a: number, b: Ffi.Pointer | Uint8Array, c: Ffi.Pointer, d: number) => number
type Getdents = (fd: number, buf: Ffi.Pointer, size: number) => number
type Close = (fd: number) => number

interface Native {
  readonly syscall: Syscall
  readonly getdents64: Getdents
  readonly close: Close
  readonly __errno_location: () => Ffi.Pointer
  readonly ptr: typeof Ffi.ptr
  readonly toArrayBuffer: typeof Ffi.toArrayBuffer
  readonly buffer: Ffi.Pointer
  readonly how: Ffi.Pointer
  readonly path: Ffi.Pointer
  readonly buffers: Buffers
}

/**
 * The reader's memory, made with the library by the first listing: a command that lists no folder (a read, whose
 * read rules may walk folders) neither allocates it nor loads bun:jsc for the JIT hint at its start.
 */
interface Buffers {
  /** getdents64's records. */
  readonly bytes: Uint8Array
  readonly view: DataView
  /** The same bytes as a Buffer: its latin1Slice makes a string of an ASCII name without a copy of the bytes first. */
  readonly latin1: Buffer & { latin1Slice(start: number, end: number): string }
  /** A folder's path, NUL-terminated (PATH_MAX); a longer one is encoded on its own. */
  readonly path: Uint8Array
  /** struct open_how { u64 flags; u64 mode; u64 resolve; } */
  readonly how: BigUint64Array
  readonly encoder: TextEncoder
  readonly strict: TextDecoder
}

const makeBuffers = (): Buffers => {
  const bytes = new Uint8Array(64 * 1024)
  return {
    bytes,
    view: new DataView(bytes.buffer),
    latin1: Buffer.from(bytes.buffer) as Buffers["latin1"],
    path: new Uint8Array(4096),
    how: new BigUint64Array([BigInt(O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), 0n, BigInt(RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)]),
    encoder: new TextEncoder(),
    strict: new TextDecoder("utf-8", { fatal: true }),
  }
}

const SYS_OPENAT2 = 437
const AT_FDCWD = -100
// The platform's own values (arm64 numbers O_DIRECTORY and O_NOFOLLOW differently from x86-64).
const O_DIRECTORY = constants.O_DIRECTORY
const O_NOFOLLOW = constants.O_NOFOLLOW
const O_CLOEXEC = 0o2000000
const RESOLVE_NO_MAGICLINKS = 0x02
const RESOLVE_NO_SYMLINKS = 0x04
const DT_UNKNOWN = 0
const DT_DIR = 4
const DT_REG = 8
const DT_LNK = 10
const ENOSYS = 38
const EPERM = 1

const load = (): Native | undefined => {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return undefined
  try {
    // Loaded on the first listing, not at start: bun:ffi costs every command about a millisecond.
    const { dlopen, FFIType, ptr, toArrayBuffer } = process.getBuiltinModule("bun:ffi") as typeof Ffi
    const lib = dlopen("libc.so.6", {
      // Both return a long; the values (a descriptor, a byte count up to the buffer's size, -1) fit in 32 bits,
      // and an i32 result is a plain number where an i64 one would be a BigInt per call.
      syscall: { args: [FFIType.i64, FFIType.i64, FFIType.ptr, FFIType.ptr, FFIType.i64], returns: FFIType.i32 },
      getdents64: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
      __errno_location: { args: [], returns: FFIType.ptr },
    })
    const buffers = makeBuffers()
    keepBelowTopTier(listFastKept)
    return {
      ...(lib.symbols as unknown as Omit<Native, "ptr" | "toArrayBuffer" | "buffer" | "how" | "path" | "buffers">),
      ptr,
      toArrayBuffer,
      // The buffers live as long as the process (this object keeps them) and JavaScriptCore never moves them: their addresses are taken once.
      buffer: ptr(buffers.bytes),
      how: ptr(buffers.how),
      path: ptr(buffers.path),
      buffers,
    }
  } catch {
    return undefined
  }
}

let native: Native | undefined | null = null
let enabled = true

/** Turns the fast reader on or off for this process (tests compare its answers with the portable reader's). */
export const setFastListing = (on: boolean): void => {
  enabled = on
}
let errnoView: Int32Array | undefined

const errno = (lib: Native): number => {
  if (errnoView === undefined) {
    errnoView = new Int32Array(lib.toArrayBuffer(lib.__errno_location(), 0, 4))
  }
  return errnoView[0] ?? 0
}

/** `dir` as a NUL-terminated C string: in the reused buffer, or (a longer one) an array of its own, passed as such. */
const pathPointer = (lib: Native, dir: string): Ffi.Pointer | Uint8Array => {
  const { encoder, path } = lib.buffers
  const { read, written } = encoder.encodeInto(dir, path)
  if (read === dir.length && written < path.length) {
    path[written] = 0
    return lib.path
  }
  return encoder.encode(`${dir}\0`)
}

/** Off for the rest of the process once openat2 proves unusable. */
const disable = () => {
  native = undefined
}

/** A folder's entries, possibly only some of them (see {@link listFastKept}). */
export interface FastListing {
  readonly entries: Array<FastEntry>
  /** How many entries the folder has (besides "." and ".."), kept or not. */
  readonly total: number
}

/**
 * The entries of the folder at absolute real path `dir` (no "." or ".."), in
 * the order the file system keeps them; undefined when it cannot be listed as
 * that path (missing, not a folder, a link on the way, no permission);
 * `"fallback"` when this reader cannot tell and the portable one must.
 */
export const listFast = (dir: string): ReadonlyArray<FastEntry> | undefined | "fallback" => {
  const listing = listFastKept(dir, undefined)
  return typeof listing === "object" ? listing.entries : listing
}

/**
 * {@link listFast}, keeping only the folders and the other entries whose
 * names `keep` accepts (all when it is undefined); the rest are counted in
 * `total` without ever becoming strings.
 */
export const listFastKept = (dir: string, keep: NameFilter | undefined): FastListing | undefined | "fallback" => {
  // A folder whose path holds a name that is not UTF-8 (escaped bytes): the portable reader opens it by its bytes.
  if (!enabled || hasEscapedBytes(dir)) return "fallback"
  if (native === null) native = load()
  const lib = native
  if (lib === undefined) return "fallback"
  const fd = lib.syscall(SYS_OPENAT2, AT_FDCWD, pathPointer(lib, dir), lib.how, 24)
  if (fd < 0) {
    const code = errno(lib)
    if (code === ENOSYS || code === EPERM) {
      disable()
      return "fallback"
    }
    // ELOOP (a link somewhere on the path, which the portable check refuses too), ENOENT, ENOTDIR, EACCES, …
    return code === 0 ? "fallback" : undefined
  }
  const { bytes: BUFFER, view: VIEW, latin1: BYTES, strict } = lib.buffers
  try {
    const entries: Array<FastEntry> = []
    let total = 0
    for (;;) {
      const n = lib.getdents64(fd, lib.buffer, BUFFER.length)
      if (n < 0) return undefined
      if (n === 0) return { entries, total }
      for (let off = 0; off < n; ) {
        const reclen = VIEW.getUint16(off + 16, true)
        const d = BUFFER[off + 18]!
        const start = off + 19
        const end = BUFFER.indexOf(0, start)
        off += reclen
        if (end - start <= 2 && BUFFER[start] === 46 && (end - start === 1 || BUFFER[start + 1] === 46)) continue
        if (d === DT_UNKNOWN) return "fallback"
        total++
        if (keep !== undefined && d !== DT_DIR && !keep.accepts(BUFFER, start, end)) continue
        let ascii = true
        for (let i = start; i < end; i++) {
          if (BUFFER[i]! >= 0x80) {
            ascii = false
            break
          }
        }
        let name: string
        if (ascii) name = BYTES.latin1Slice(start, end)
        else {
          try {
            name = strict.decode(BUFFER.subarray(start, end))
          } catch {
            return "fallback"
          }
        }
        entries.push({ name, type: d === DT_REG ? "File" : d === DT_DIR ? "Directory" : d === DT_LNK ? "SymbolicLink" : "Other" })
      }
    }
  } finally {
    lib.close(fd)
  }
}
