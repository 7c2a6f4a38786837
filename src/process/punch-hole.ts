import type * as Ffi from "bun:ffi"

/**
 * Frees the disk blocks of a byte range of an open file without changing its
 * size (fallocate(2) with FALLOC_FL_PUNCH_HOLE): the range then reads as
 * zeros and takes no space. Used on the part of a command's output beyond
 * what is kept, once it was counted, so a runaway command cannot fill the
 * disk before its output is cut.
 */

const FALLOC_FL_KEEP_SIZE = 1
const FALLOC_FL_PUNCH_HOLE = 2

type FallocateFn = (fd: number, mode: number, offset: number, length: number) => number

const load = (): FallocateFn | undefined => {
  if (process.platform !== "linux") return undefined
  // Loaded on the first hole, not at start: bun:ffi costs every command about a millisecond.
  const { dlopen, FFIType } = process.getBuiltinModule("bun:ffi") as typeof Ffi
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const lib = dlopen(name, { fallocate: { args: [FFIType.i32, FFIType.i32, FFIType.i64, FFIType.i64], returns: FFIType.i32 } })
      return lib.symbols.fallocate as unknown as FallocateFn
    } catch {
      // try the next name
    }
  }
  return undefined
}

let fallocate: FallocateFn | undefined | null = null

/** Frees `[offset, offset + length)` of `fd`; false when the system or the file system cannot. */
export const punchHole = (fd: number, offset: number, length: number): boolean => {
  if (fallocate === null) fallocate = load()
  if (fallocate === undefined || length <= 0) return false
  return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) === 0
}
