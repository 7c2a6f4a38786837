import type * as Ffi from "bun:ffi"
import { fstatSync } from "node:fs"
import { openLibc } from "../workspace/libc.ts"

/**
 * Notices that the reader of a pipe or socket anvil writes to has gone (`anvil run … | head -1` after head
 * exited) without writing to it: poll(2) reports POLLERR on a pipe whose readers are all closed and POLLHUP on a
 * socket whose peer shut down. A run that writes nothing while a long command runs thus stops within a poll
 * interval, not at its next message. A write that fails with EPIPE says the same sooner (see output.ts).
 */

const POLLERR = 0x008
const POLLHUP = 0x010

type PollFn = (fds: Ffi.Pointer, count: number, timeoutMs: number) => number

// Loaded by the commands that watch their output, not at start (see openLibc).
const loadPoll = (): { poll: PollFn; ptr: typeof Ffi.ptr } | undefined => {
  if (process.platform !== "linux" && process.platform !== "darwin") return undefined
  const poll = openLibc((t) => ({ poll: { args: [t.ptr, t.u64, t.i32], returns: t.i32 } }))?.poll as PollFn | undefined
  return poll && { poll, ptr: (process.getBuiltinModule("bun:ffi") as typeof Ffi).ptr }
}

/** Whether `fd` is a pipe or a socket (a file or a terminal has no reader to lose). */
const isPipeOrSocket = (fd: number): boolean => {
  try {
    const st = fstatSync(fd)
    return st.isFIFO() || st.isSocket()
  } catch {
    return false
  }
}

/**
 * Calls `onGone` once, when the reader of `fd` is gone; checks every `everyMs`. Returns the stop function. Does
 * nothing where `fd` is no pipe or socket, or poll(2) cannot be reached.
 */
export const watchReaderGone = (fd: number, onGone: () => void, everyMs = 200): (() => void) => {
  if (!isPipeOrSocket(fd)) return () => undefined
  const libc = loadPoll()
  if (!libc) return () => undefined
  // struct pollfd { int fd; short events; short revents; }: no events asked for, POLLERR and POLLHUP always come.
  const pollfd = new Int32Array(2)
  pollfd[0] = fd
  const view = new Int16Array(pollfd.buffer)
  const timer = setInterval(() => {
    view[2] = 0
    view[3] = 0
    if (libc.poll(libc.ptr(pollfd), 1, 0) > 0 && (view[3]! & (POLLERR | POLLHUP)) !== 0) {
      clearInterval(timer)
      onGone()
    }
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
