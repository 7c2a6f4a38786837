import { Data } from "effect"
import { openLibc } from "./libc.ts"

/**
 * Advisory whole-file locks (flock(2)) through libc, so two anvil processes
 * changing one file take turns. A lock belongs to the open file description:
 * closing the descriptor, or the process dying, releases it. Without a libc
 * flock (an unusual platform) locking is skipped.
 */

const LOCK_EX = 2
const LOCK_NB = 4

type FlockFn = (fd: number, op: number) => number

// Loaded on the first lock, not at start.
const loadFlock = (): FlockFn | undefined =>
  openLibc((t) => ({ flock: { args: [t.i32, t.i32], returns: t.i32 } }))?.flock as FlockFn | undefined

let flockFn: FlockFn | undefined | null = null
const flock = (): FlockFn | undefined => {
  if (flockFn === null) flockFn = loadFlock()
  return flockFn
}

const pause = new Int32Array(new SharedArrayBuffer(4))
const sleepMs = (ms: number) => Atomics.wait(pause, 0, 0, ms)

/** Thrown when another process held the lock for longer than the wait allows. */
export class LockBusy extends Data.TaggedError("LockBusy")<{ readonly message: string }> {}

/**
 * Takes an exclusive lock on `fd`, polling without blocking the thread for
 * longer than a few milliseconds at a time; throws LockBusy after `waitMs`.
 */
export const lockExclusive = (fd: number, waitMs = 10_000): void => {
  const f = flock()
  if (f === undefined) return
  let waited = 0
  for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
    if (f(fd, LOCK_EX | LOCK_NB) === 0) return
    if (waited >= waitMs) throw new LockBusy({ message: `another process holds the lock (waited ${waitMs} ms)` })
    sleepMs(delay)
    waited += delay
  }
}

/** Takes the lock only when it is free; false when another process holds it. */
export const tryLockExclusive = (fd: number): boolean => {
  const f = flock()
  return f === undefined ? true : f(fd, LOCK_EX | LOCK_NB) === 0
}
