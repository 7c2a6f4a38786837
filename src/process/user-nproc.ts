import { readdirSync, readFileSync, statSync } from "node:fs"
import { installedProgram } from "./installed-program.ts"

/**
 * A process limit for a command that runs outside the command sandbox where
 * anvil can make no cgroup (tree-cgroup.ts): RLIMIT_NPROC, set through
 * util-linux `prlimit` on the command alone. The kernel counts it over every
 * process and thread of the user, not of the command, so the limit is the
 * user's count when the command starts plus `sandbox.max_processes`: the
 * command's tree may add about that many (fewer if the user's other programs
 * start more meanwhile, more if some end); a fork bomb stops there. The user's
 * other processes keep their own limits. It cannot hold root (the kernel does
 * not apply RLIMIT_NPROC to it), and it is only a count: ending the tree still
 * rests on its process group and marks.
 */

/**
 * The tasks (processes and threads) whose real user is `uid` now, as RLIMIT_NPROC counts them. Only the
 * processes whose /proc folder `uid` owns are read (a stat each, instead of reading every process's status:
 * about 0.6 ms instead of 4 ms for 200 processes); the few of the user's that /proc shows as another's
 * (a setuid program such as sudo while it runs, an agent that forbids core dumps) are not counted, which
 * leaves the command that many fewer.
 */
export const userTasks = (uid: number): number => {
  let n = 0
  let pids: Array<string>
  try {
    pids = readdirSync("/proc")
  } catch {
    return 0
  }
  for (const pid of pids) {
    if (pid.charCodeAt(0) < 48 || pid.charCodeAt(0) > 57) continue
    let status: string
    try {
      if (statSync(`/proc/${pid}`).uid !== uid) continue
      status = readFileSync(`/proc/${pid}/status`, "latin1")
    } catch {
      continue
    }
    const real = /\nUid:\s+(\d+)/.exec(status)?.[1]
    if (Number(real) !== uid) continue
    n += Number(/\nThreads:\s+(\d+)/.exec(status)?.[1] ?? 1)
  }
  return n
}

/** util-linux prlimit, looked up once; undefined where it is not installed. */
export const prlimitProgram = (): string | undefined => installedProgram(["/usr/bin/prlimit", "/bin/prlimit", "/usr/local/bin/prlimit"])

/**
 * The argv prefix that runs a command under RLIMIT_NPROC (soft and hard, so it
 * cannot raise it) of the user's tasks now plus `max`; undefined for root,
 * off Linux, or without prlimit.
 */
export const userNprocPrefix = (max: number, uid = process.getuid?.(), count = userTasks): Array<string> | undefined => {
  const program = prlimitProgram()
  if (max <= 0 || uid === undefined || uid === 0 || process.platform !== "linux" || program === undefined) return undefined
  const limit = count(uid) + max
  return [program, `--nproc=${limit}:${limit}`, "--"]
}
