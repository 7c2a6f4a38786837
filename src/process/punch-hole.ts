import { openLibc } from "../workspace/libc.ts"

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

// Loaded on the first hole, not at start (see openLibc).
const load = (): FallocateFn | undefined =>
  process.platform === "linux"
    ? (openLibc((t) => ({ fallocate: { args: [t.i32, t.i32, t.i64, t.i64], returns: t.i32 } }))?.fallocate as FallocateFn | undefined)
    : undefined

let fallocate: FallocateFn | undefined | null = null

/** Frees `[offset, offset + length)` of `fd`; false when the system or the file system cannot. */
export const punchHole = (fd: number, offset: number, length: number): boolean => {
  if (fallocate === null) fallocate = load()
  if (fallocate === undefined || length <= 0) return false
  return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) === 0
}
