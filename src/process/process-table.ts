import { readdirSync, readFileSync, statSync } from "node:fs"

/**
 * What /proc says about the processes anvil may have to end. Linux only: where
 * /proc cannot be read, the answers fall back to kill(0) on the group and an
 * empty list of marked processes (the group is then the only handle).
 */

/** The environment variable that carries every managed process's marks. */
export const MARK_VAR = "ANVIL_PROC_MARK"

/** Separates the marks of nested managed processes (anvil started by a process anvil started). */
const MARK_SEPARATOR = ","

/**
 * The mark value for a child: the marks it inherited plus its own, so that the
 * outer anvil's scan still finds the processes an inner anvil started.
 */
export const markValue = (inherited: string | undefined, mark: string): string =>
  inherited === undefined || inherited === "" ? mark : `${inherited}${MARK_SEPARATOR}${mark}`

const pids = (): Array<number> => {
  let names: Array<string>
  try {
    names = readdirSync("/proc")
  } catch {
    return []
  }
  const out: Array<number> = []
  for (const name of names) {
    const c = name.charCodeAt(0)
    if (c >= 48 && c <= 57) out.push(Number(name))
  }
  return out
}

/** What /proc/<pid>/stat says of a process that anvil looks at. */
export interface ProcessStat {
  readonly state: string
  readonly pgid: number
  readonly session: number
  readonly flags: number
  /** When it started, in clock ticks since boot. */
  readonly start: number
}

/** State, group, session, flags and start of `pid` (or of this process); undefined when it is gone. */
export const statOf = (pid: number | "self"): ProcessStat | undefined => {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1")
  } catch {
    return undefined
  }
  // pid (comm) state ppid pgrp session tty_nr tpgid flags … starttime (the 22nd field, the 20th after comm);
  // comm may contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { state: fields[0] ?? "", pgid: Number(fields[2]), session: Number(fields[3]), flags: Number(fields[6]), start: Number(fields[19]) }
}

/** Whether `pid` lives (a zombie does not: it is only waiting to be reaped). */
export const processLiving = (pid: number): boolean => {
  const s = statOf(pid)
  return s !== undefined && living(s.state)
}

/** Whether /proc shows `pid` ended but not yet reaped (a zombie); false when it lives, is gone, or /proc cannot tell. */
export const processUnreaped = (pid: number): boolean => {
  const s = statOf(pid)
  return s !== undefined && !living(s.state)
}

/** A kernel thread (PF_KTHREAD): no environment, never one of anvil's. */
const PF_KTHREAD = 0x00200000

/** Zombies and dead entries hold no resources and cannot be signalled further. */
const living = (state: string) => state !== "Z" && state !== "X" && state !== ""

const procReadable = (() => {
  let known: boolean | undefined
  return () => (known ??= (() => {
    try {
      readFileSync("/proc/self/stat")
      return true
    } catch {
      return false
    }
  })())
})()

/**
 * Whether any process of group `pgid` is still alive. Zombies do not count: a
 * container's init may never reap them. Without /proc a successful kill(0) is
 * taken at its word.
 */
export const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch {
    return false // ESRCH: no such group; EPERM: nothing we may signal
  }
  if (!procReadable()) return true
  for (const pid of pids()) {
    const s = statOf(pid)
    if (s !== undefined && s.pgid === pgid && living(s.state)) return true
  }
  return false
}

/** What one look through /proc for marked processes saw. */
export interface MarkScan {
  /** The living processes whose environment carries one of the marks. */
  readonly found: Array<number>
  /**
   * Living processes caught inside an exec: until the new program's memory is
   * set up the kernel shows no environment (nor command line), so whether they
   * carry a mark cannot be told yet. A moment later it can.
   */
  readonly unsure: Array<number>
}

/** The environment of `pid` as /proc shows it; undefined when it cannot be read (another user's, or gone). */
const environOf = (pid: number): Buffer | undefined => {
  try {
    return readFileSync(`/proc/${pid}/environ`)
  } catch {
    return undefined
  }
}

const emptyCommandLine = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`).length === 0
  } catch {
    return false
  }
}

/**
 * The environment of a process whose environment first read back empty. That
 * happens to a read that crossed an exec (the old program's memory is gone) and
 * inside an exec, until the new program's arguments and environment are laid
 * out (both at once). Once the command line shows, the environment read next is
 * the program's own: empty then means it cleared it. "unsure" while the command
 * line is blank (still inside the exec).
 */
const settledEnviron = (pid: number): Buffer | undefined | "unsure" => {
  let environ: Buffer | undefined
  // Another read may cross the next exec (`setsid` turning into its program): a few tries.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (emptyCommandLine(pid)) return "unsure"
    environ = environOf(pid)
    if (environ === undefined || environ.length > 0) return environ
  }
  return environ
}

/**
 * The living processes whose environment carries one of `marks` —
 * wherever they went: `setsid`, `nohup`, double forks and daemons keep the
 * environment they were started with. A process that cleared its environment
 * (`env -i`) is not found; its process group still is, unless it left that too.
 * A process in the middle of an exec (a marked `setsid` turning into its
 * program) shows an empty environment: it is re-read, and listed as unsure when
 * it is still blank.
 */
export const scanMarked = (marks: ReadonlyArray<string>): MarkScan => {
  if (marks.length === 0) return { found: [], unsure: [] }
  const wanted = new Set(marks)
  // One mark: look for it; several (the exit sweep): look for the variable.
  const needle = Buffer.from(marks.length === 1 ? marks[0]! : MARK_VAR)
  const prefix = `${MARK_VAR}=`
  const found: Array<number> = []
  const unsure: Array<number> = []
  for (const pid of pids()) {
    if (pid === process.pid) continue
    let environ: Buffer | undefined = environOf(pid)
    if (environ === undefined) continue
    if (environ.length === 0) {
      const s = statOf(pid)
      if (s === undefined || !living(s.state) || (s.flags & PF_KTHREAD) !== 0) continue
      const settled = settledEnviron(pid)
      if (settled === "unsure") unsure.push(pid)
      if (settled === "unsure" || settled === undefined || settled.length === 0) continue
      environ = settled
    }
    if (environ.indexOf(needle) < 0) continue
    const entry = environ
      .toString("latin1")
      .split("\0")
      .find((e) => e.startsWith(prefix))
    if (entry === undefined || !entry.slice(prefix.length).split(MARK_SEPARATOR).some((m) => wanted.has(m))) continue
    const s = statOf(pid)
    if (s !== undefined && living(s.state)) found.push(pid)
  }
  return { found, unsure }
}

/** The marks in `pid`'s environment (none when it has none); undefined when it cannot be read. */
export const marksOf = (pid: number): Array<string> | undefined => {
  const environ = environOf(pid)
  if (environ === undefined) return undefined
  const entry = environ.toString("latin1").split("\0").find((e) => e.startsWith(`${MARK_VAR}=`))
  return entry === undefined ? [] : entry.slice(MARK_VAR.length + 1).split(MARK_SEPARATOR)
}

/** The living processes carrying one of `marks` (see {@link scanMarked}; those caught inside an exec are not listed). */
export const markedProcesses = (marks: ReadonlyArray<string>): Array<number> => scanMarked(marks).found

/** Sends `signal` to a process group, ignoring groups that are gone. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal)
  } catch {
    // already gone
  }
}

/** Sends `signal` to one process, ignoring one that is gone. */
export const signalProcess = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** A file as the kernel names it: device and inode. */
export interface FileIdentity {
  readonly dev: number
  readonly ino: number
}

/** Whether `pid` has one of `files` open (any descriptor). */
export const holdsFile = (pid: number, files: ReadonlyArray<FileIdentity>): boolean => {
  let fds: Array<string>
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false // gone, or not ours to look at
  }
  for (const fd of fds) {
    try {
      const s = statSync(`/proc/${pid}/fd/${fd}`)
      if (files.some((f) => f.ino === s.ino && f.dev === s.dev)) return true
    } catch {
      // closed meanwhile
    }
  }
  return false
}

/**
 * Whether a living process of group `pgid`, or one carrying `mark`, still has
 * one of `files` open — what a pipe's missing end-of-file says when a
 * command's output goes to files instead: a background process the command
 * left behind still writes there. Anvil's own descriptors do not count.
 * Without /proc nothing is found.
 */
export const treeHoldsFile = (pgid: number, mark: string, files: ReadonlyArray<FileIdentity>): boolean => {
  if (files.length === 0 || !procReadable()) return false
  // One caught inside an exec counts too: only a process of the tree holds these files.
  const scan = scanMarked([mark])
  const marked = new Set([...scan.found, ...scan.unsure])
  for (const pid of pids()) {
    if (pid === process.pid) continue
    if (!marked.has(pid)) {
      const s = statOf(pid)
      if (s === undefined || s.pgid !== pgid || !living(s.state)) continue
    }
    if (holdsFile(pid, files)) return true
  }
  return false
}
