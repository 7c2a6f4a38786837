import { cagesAvailable } from "../process/tree-cgroup.ts"
import type { SandboxSupport } from "./probe.ts"

/**
 * How `sandbox.max_processes` is held on this machine, for `anvil sandbox`:
 * a pids cgroup where anvil can make one (every command, confined or not),
 * else RLIMIT_NPROC inside the sandbox's own user namespace (confined
 * commands of a user other than root: the kernel does not apply it to root),
 * else not at all.
 */
export const processLimitLine = (max: number, support: SandboxSupport, confining: boolean, uid = process.getuid?.()): string => {
  if (max === 0) return "none (sandbox.max_processes is 0)"
  if (cagesAvailable()) return `${max} processes and threads per command (a pids cgroup, confined or not)`
  if (confining && support.available && support.prlimit !== undefined && uid !== 0) return `${max} processes and threads per confined command (RLIMIT_NPROC in the sandbox's own user namespace); none for unconfined commands`
  if (confining && support.available && support.prlimit === undefined) return "none: prlimit (util-linux) is not installed"
  return confining ? "none: anvil runs as root without a writable pids cgroup" : "none for unconfined commands without a writable pids cgroup"
}
