import { cagesAvailable } from "../process/tree-cgroup.ts"
import type { SandboxSupport } from "./probe.ts"
import { prlimitProgram } from "../process/user-nproc.ts"

/**
 * How `sandbox.max_processes` is held on this machine, for `anvil sandbox`:
 * a pids cgroup where anvil can make one (every command, confined or not),
 * else RLIMIT_NPROC inside the sandbox's own user namespace (confined
 * commands of a user other than root: the kernel does not apply it to root),
 * or over the user's own count for unconfined ones (process/user-nproc.ts),
 * else not at all.
 */
export const processLimitLine = (max: number, support: SandboxSupport, confining: boolean, uid = process.getuid?.()): string => {
  if (max === 0) return "none (sandbox.max_processes is 0)"
  if (cagesAvailable()) return `${max} processes and threads per command (a pids cgroup, confined or not)`
  if (uid === 0) return `none: anvil runs as root without a writable pids cgroup (the kernel does not apply RLIMIT_NPROC to root)`
  const unconfined = prlimitProgram() === undefined
    ? "none for unconfined commands: prlimit (util-linux) is not installed"
    : `${max} processes and threads beyond all of yours at its start per unconfined command (RLIMIT_NPROC counts every process of the user)`
  if (!confining || !support.available) return unconfined
  if (support.prlimit === undefined) return "none: prlimit (util-linux) is not installed"
  return `${max} processes and threads per confined command (RLIMIT_NPROC in the sandbox's own user namespace); ${unconfined}`
}
