import { DRAIN_INIT, DRAIN_POLL_MS } from "./drain-init.ts"
import type { SandboxPolicy } from "./policy.ts"

export interface BwrapCommand {
  readonly policy: SandboxPolicy
  /** Share the host's network (sandbox.network "on"); otherwise the command gets its own empty network namespace. */
  readonly shareNet: boolean
  /** Running as uid 0: capabilities are dropped so root inside cannot undo the mounts. */
  readonly root: boolean
  /** Where the policy's gitExclude text was written (bound over the repository's info/exclude). */
  readonly gitExcludeFile?: string
  /** Where each of the policy's redacted settings files was written, in order (bound over the real one). */
  readonly redactedFiles?: ReadonlyArray<string>
  /** Run the command under this RLIMIT_NPROC (prlimit, inside the sandbox's own user namespace). */
  readonly nproc?: { readonly prlimit: string; readonly max: number }
  /**
   * Wait this long for what the command leaves in the background to let go of its output, then end it and make
   * `marker` (drain-init.ts); without it the namespace ends with the command.
   */
  readonly drain?: { readonly ms: number; readonly marker: string }
  readonly cwd: string
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/**
 * The bubblewrap argument list for one command. The order matters: the whole
 * filesystem read-only, then the writable folders, then the folders holding
 * protected paths onto themselves (so they cannot be moved aside), then the protected paths
 * read-only again on top, then the hidden secrets (an empty read-only tmpfs
 * over a folder, with /dev/null over the paths git tracks in it; /dev/null over a file), the redacted copies of settings
 * files, then /dev/null over the Unix sockets of
 * programs outside. New user, PID, IPC, UTS, cgroup and
 * (unless shared) network namespaces; the sandbox dies with anvil.
 * No --new-session: the runner already starts each command in its own session
 * (no controlling terminal), and a new session would take the sandbox out of
 * the process group the runner ends on timeout.
 */
export const bwrapArgs = (c: BwrapCommand): Array<string> => {
  const a: Array<string> = ["--unshare-all"]
  if (c.shareNet) a.push("--share-net")
  a.push("--die-with-parent")
  if (c.drain) a.push("--as-pid-1")
  if (c.root) a.push("--cap-drop", "ALL")
  a.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
  for (const w of c.policy.writable) a.push("--bind", w, w)
  for (const d of c.policy.pinned) a.push("--bind", d, d)
  for (const r of c.policy.readOnly) a.push("--ro-bind", r, r)
  for (const s of c.policy.standIns) a.push("--ro-bind", s.path, s.path)
  if (c.policy.gitExclude && c.gitExcludeFile) a.push("--ro-bind", c.gitExcludeFile, c.policy.gitExclude.path)
  for (const d of c.policy.hiddenDirs) {
    a.push("--tmpfs", d)
    // Made in the tmpfs before it turns read-only (bubblewrap makes the folders on the way).
    for (const t of c.policy.hiddenTracked) if (t.path.startsWith(`${d}/`)) a.push(...(t.kind === "dir" ? ["--dir", t.path] : ["--ro-bind", "/dev/null", t.path]))
    a.push("--remount-ro", d)
  }
  for (const f of c.policy.hiddenFiles) a.push("--ro-bind", "/dev/null", f)
  c.redactedFiles?.forEach((source, i) => a.push("--ro-bind", source, c.policy.redacted[i]!.path))
  for (const s of c.policy.hiddenSockets) a.push("--ro-bind", "/dev/null", s)
  a.push("--chdir", c.cwd, "--")
  if (c.drain) a.push("/bin/sh", "-c", DRAIN_INIT, "anvil-drain", String(Math.ceil(c.drain.ms / DRAIN_POLL_MS)), c.drain.marker)
  if (c.nproc) a.push(c.nproc.prlimit, `--nproc=${c.nproc.max}:${c.nproc.max}`, "--")
  a.push(c.file, ...c.args)
  return a
}
