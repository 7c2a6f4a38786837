import { readdirSync, readFileSync } from "node:fs"
import { openLibc } from "../workspace/libc.ts"
import { statOf } from "./process-table.ts"

/**
 * anvil as the "child subreaper" of everything it starts outside the command
 * sandbox (prctl PR_SET_CHILD_SUBREAPER). A process whose parent dies is
 * handed to its nearest living subreaper ancestor instead of init: so a
 * daemon that cleared its environment (`env -i`, losing its mark) and left
 * its process group (`setsid`) still turns up, as a child of anvil that anvil
 * did not start, and is ended with the tree it came from. The runtime waits
 * only for the children it started; the adopted ones are reaped here.
 *
 * Costs bun:ffi's load (about 1 ms of CPU) once per anvil process, with the
 * first tree that runs unconfined; confined trees need none of it (their PID
 * namespace ends with them). A child the runtime started but anvil's process
 * runner did not (a plugin's own `child_process`, detached into a session of
 * its own) cannot be told from an adopted one: it counts as one, but is never
 * reaped here (see {@link adoptedChildren}).
 */

const PR_SET_CHILD_SUBREAPER = 36
const WNOHANG = 1

type Libc = { readonly prctl: (...a: Array<number>) => number; readonly waitpid: (pid: number, status: Int32Array, options: number) => number }

let libc: Libc | undefined | null = null
let adopting = false

/** Makes anvil the subreaper of its descendants, once; false where it cannot (not Linux, no libc). */
export const adoptOrphans = (): boolean => {
  if (libc !== null) return adopting
  libc = process.platform === "linux"
    ? (openLibc((t) => ({
        prctl: { args: [t.i32, t.u64, t.u64, t.u64, t.u64], returns: t.i32 },
        waitpid: { args: [t.i32, t.ptr, t.i32], returns: t.i32 },
      })) as Libc | undefined)
    : undefined
  adopting = libc !== undefined && libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0
  return adopting
}

/** When `pid` started, in clock ticks since boot; undefined when it is gone. */
export const startTicks = (pid: number): number | undefined => statOf(pid)?.start

/** Now, in the clock ticks of {@link startTicks} (/proc counts them at 100 a second). */
export const ticksNow = (): number => {
  try {
    return Math.floor(Number(readFileSync("/proc/uptime", "latin1").split(" ")[0]) * 100)
  } catch {
    return 0
  }
}

/** The children the runtime started and has not yet seen end (it waits for those itself). */
const started = new Set<number>()

/**
 * The processes this one holds a pidfd for (Linux /proc/self/fdinfo shows a pidfd's `Pid:`): the runtime's own
 * children, since Bun waits for each of its subprocesses through one and closes it once it has reaped it.
 */
const pidfdTargets = (): Set<number> => {
  const out = new Set<number>()
  let fds: Array<string>
  try {
    fds = readdirSync("/proc/self/fdinfo")
  } catch {
    return out
  }
  for (const fd of fds) {
    let info: string
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "latin1")
    } catch {
      continue // the listing's own descriptor, or one closed meanwhile
    }
    const pid = /^Pid:\s*(\d+)/m.exec(info)?.[1]
    if (pid !== undefined) out.add(Number(pid))
  }
  return out
}

/**
 * Whether the runtime was seen holding a pidfd for a child it started: only then can its other children be told
 * from adopted ones (see {@link adoptedChildren}). Looked at for the first few children noted, not at every start.
 */
let pidfdsSeen = false
let pidfdLooks = 0
const PIDFD_LOOKS = 3

/** Notes a child the runtime started (until `exited` settles, see {@link forgetChild}). */
export const noteChild = (pid: number): void => {
  started.add(pid)
  if (!pidfdsSeen && adopting && pidfdLooks < PIDFD_LOOKS) {
    pidfdLooks++
    pidfdsSeen = pidfdTargets().has(pid)
  }
}

/** The runtime has waited for this child: it is no longer one to leave alone. */
export const forgetChild = (pid: number): void => {
  started.delete(pid)
}

const reaped = new Int32Array(1)
let ownSession: number | undefined

/**
 * The living processes anvil adopted (its children it did not start), with
 * when each started. Adopted ones that ended meanwhile are reaped, but never
 * a child the runtime started itself (one of a plugin's, or a Bun.spawn
 * elsewhere in anvil): Bun's own wait for it would then fail (ECHILD, thrown
 * where nothing catches it) and its `exited` never settle. Such a child is
 * told by the pidfd Bun holds for it; where Bun was not seen using pidfds,
 * no ended child is reaped here (it stays a zombie until anvil exits).
 */
export const adoptedChildren = (): Array<{ readonly pid: number; readonly start: number }> => {
  if (!adopting) return []
  // A child in anvil's own session was started by anvil (a plugin's child_process, say): every tree anvil
  // manages has a session of its own, and nothing can join another session, so no orphan is in this one.
  const session = (ownSession ??= statOf("self")?.session ?? -1)
  const out: Array<{ pid: number; start: number }> = []
  let runtimes: Set<number> | undefined
  let tasks: Array<string>
  try {
    tasks = readdirSync("/proc/self/task")
  } catch {
    return []
  }
  for (const task of tasks) {
    let children: string
    try {
      children = readFileSync(`/proc/self/task/${task}/children`, "latin1")
    } catch {
      continue
    }
    for (const word of children.split(" ")) {
      const pid = Number(word)
      if (word === "" || started.has(pid)) continue
      const s = statOf(pid)
      if (s === undefined || s.session === session) continue
      if (s.state === "Z" || s.state === "X") {
        if (pidfdsSeen && !(runtimes ??= pidfdTargets()).has(pid)) libc?.waitpid(pid, reaped, WNOHANG)
      } else out.push({ pid, start: s.start })
    }
  }
  return out
}
