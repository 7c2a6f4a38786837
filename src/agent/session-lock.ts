import { closeSync, constants, openSync } from "node:fs"
import { Effect, type Scope } from "effect"
import { lockExclusive, LockBusy, tryLockExclusive } from "../workspace/flock.ts"

/**
 * A session file in use: the process that writes a session holds an advisory
 * lock (flock) on it for as long as the session is open. Two processes
 * appending to one session would interleave their turns (a tool call of one
 * followed by the other's prompt), a history no model server accepts; and a
 * prune must not remove a session whose first turn is still running. The
 * lock ends with its descriptor, so a crashed anvil leaves no stale lock.
 */

/** Opens `file` for locking only (never following a link: session files are made exclusively, never as links). */
const openForLock = (file: string): number | undefined => {
  try {
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
}

/**
 * Takes the session's lock for the scope's lifetime; false when another process holds it (the session is open
 * there). A file that cannot be opened for locking is not known to be in use: true, and the write reports its own error.
 */
export const holdSessionLock = (file: string): Effect.Effect<boolean, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const fd = openForLock(file)
      if (fd === undefined) return { fd, held: true }
      try {
        // A short wait: a prune's look at the file holds the lock for a moment, a session for its whole life.
        lockExclusive(fd, 250)
        return { fd, held: true }
      } catch (e) {
        closeSync(fd)
        if (e instanceof LockBusy) return { fd: undefined, held: false }
        throw e
      }
    }),
    ({ fd }) => Effect.sync(() => (fd === undefined ? undefined : closeSync(fd))),
  ).pipe(Effect.map(({ held }) => held))

/** Whether another process has the session open now (it holds the lock). */
export const sessionInUse = (file: string): boolean => {
  const fd = openForLock(file)
  if (fd === undefined) return false
  try {
    return !tryLockExclusive(fd)
  } finally {
    closeSync(fd)
  }
}
