import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * A process count limit for one command's tree through a cgroup's
 * `pids.max`, where anvil may make cgroups: root (its own cgroup of the pids
 * hierarchy, v1 or v2), or a user whose cgroup was delegated to it with the
 * pids controller on. The limit counts every process and thread of the tree
 * wherever it went (setsid, env -i), so a fork bomb stops at it; the same
 * membership lets the tree be ended whole. Elsewhere there is no cage and the
 * command sandbox's RLIMIT_NPROC is the limit (bwrap-args.ts).
 *
 * The command enters its cage before it runs anything: `sh` writes its own
 * pid into the cage and execs the command (a fork from anvil straight into a
 * cgroup is not something the runtime offers).
 */
export interface TreeCage {
  /** The cgroup folder. */
  readonly dir: string
  /** The command line that enters the cage, then runs `argv`. */
  readonly enter: (argv: ReadonlyArray<string>) => Array<string>
  /** The processes in it now. */
  readonly members: () => Array<number>
  /** Removes the cgroup, now or once it is empty (true when it was removed at once). */
  readonly remove: () => boolean
}

/** Where this process may make cgroups with pids.max: found once; undefined when nowhere. */
let base: string | undefined | null = null

const read = (path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

/** The mount point and mounted root of the cgroup hierarchy for `pids` (v1) or the unified one (v2). */
const mountOf = (v2: boolean): { readonly point: string; readonly root: string } | undefined => {
  for (const line of read("/proc/self/mountinfo").split("\n")) {
    const [left, right] = line.split(" - ")
    if (!left || !right) continue
    const [fstype, , superOptions] = right.split(" ")
    const fields = left.split(" ")
    if (v2 ? fstype === "cgroup2" : fstype === "cgroup" && (superOptions ?? "").split(",").includes("pids")) {
      return { point: fields[4]!.replace(/\\040/g, " "), root: fields[3]! }
    }
  }
  return undefined
}

const writable = (dir: string): boolean => {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

const findBase = (): string | undefined => {
  if (process.platform !== "linux") return undefined
  const lines = read("/proc/self/cgroup").split("\n")
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m && m[1]!.split(",").includes("pids"))
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find((m) => m)
  const at = (mount: { point: string; root: string } | undefined, path: string) =>
    mount && (path === mount.root || path.startsWith(`${mount.root === "/" ? "" : mount.root}/`)) ? join(mount.point, path.slice(mount.root === "/" ? 0 : mount.root.length)) : undefined
  if (v1) {
    const dir = at(mountOf(false), v1[2]!)
    if (dir && writable(dir)) return dir
  }
  if (v2) {
    const dir = at(mountOf(true), v2[1]!)
    if (!dir || !writable(dir) || !read(join(dir, "cgroup.controllers")).split(/\s/).includes("pids")) return undefined
    if (read(join(dir, "cgroup.subtree_control")).split(/\s/).includes("pids")) return dir
    try {
      // Refused (EBUSY) where anvil's own cgroup holds processes and is not a root: then there is no cage.
      writeFileSync(join(dir, "cgroup.subtree_control"), "+pids")
      return dir
    } catch {
      return undefined
    }
  }
  return undefined
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Removes the empty cages anvil processes that are gone left behind (a SIGKILL gives no chance to). */
const sweepStale = (dir: string): void => {
  let names: Array<string>
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const pid = /^anvil-(\d+)-\d+$/.exec(name)?.[1]
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue
    try {
      rmdirSync(join(dir, name))
    } catch {
      // still in use, or not ours to remove
    }
  }
}

let made = 0

/** The start of every cage folder this process makes (`…/anvil-<pid>-`); undefined where it makes none. */
export const cagePrefix = (): string | undefined => (cagesAvailable() && base ? join(base, `anvil-${process.pid}-`) : undefined)

/** Whether anvil can make cages here (looked up once). */
export const cagesAvailable = (): boolean => {
  if (base === null) {
    base = findBase()
    if (base !== undefined) sweepStale(base)
  }
  return base !== undefined
}

/** Cages still held a moment after their tree ended (bubblewrap's init outlives its reported exit by a little). */
const pending = new Set<string>()
const pause = new Int32Array(new SharedArrayBuffer(4))

const tryRemove = (dir: string): boolean => {
  try {
    rmdirSync(dir)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
  }
}

/**
 * At anvil's exit, once the trees were KILLed: the cages still pending get a
 * few milliseconds to empty (what is left, the next anvil removes).
 */
export const removeCagesNow = (): void => {
  for (let waited = 0; pending.size > 0 && waited < 50; waited += 2) {
    for (const dir of pending) if (tryRemove(dir)) pending.delete(dir)
    if (pending.size > 0) Atomics.wait(pause, 0, 0, 2)
  }
}

/** Removes the cage at once, or as soon as it is empty (looked at again for up to a second). */
const removeCage = (dir: string): boolean => {
  if (tryRemove(dir)) return true
  if (pending.size === 0) process.once("exit", removeCagesNow)
  pending.add(dir)
  let tries = 0
  const again = () => {
    if (!pending.has(dir)) return
    if (tryRemove(dir) || ++tries >= 200) pending.delete(dir)
    else setTimeout(again, 5).unref()
  }
  setTimeout(again, 5).unref()
  return false
}

/**
 * A new cage holding at most `max` processes and threads; undefined where
 * anvil cannot make cgroups (the limit then rests on the sandbox's
 * RLIMIT_NPROC), or the cage could not be made.
 */
export const makeTreeCage = (max: number): TreeCage | undefined => {
  const prefix = cagePrefix()
  if (prefix === undefined) return undefined
  const dir = `${prefix}${++made}`
  try {
    mkdirSync(dir)
    writeFileSync(join(dir, "pids.max"), String(max))
  } catch {
    try {
      rmdirSync(dir)
    } catch {
      // was not made
    }
    return undefined
  }
  const procs = join(dir, "cgroup.procs")
  return {
    dir,
    // `$0` is the cage's process list; nothing runs if the command cannot enter it.
    enter: (argv) => ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, ...argv],
    members: () => read(procs).split("\n").filter((l) => l !== "").map(Number),
    remove: () => removeCage(dir),
  }
}
