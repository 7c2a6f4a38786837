import { accessSync, constants } from "node:fs"

/** What the machine offers for the command sandbox. */
export type SandboxSupport =
  | { readonly available: true; readonly bwrap: string; readonly version: string }
  | { readonly available: false; readonly reason: string; readonly fix: string }

/** How to get bubblewrap, for messages. */
export const INSTALL_HINT = "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)"

const onPath = (name: string, path: string | undefined): string | undefined => {
  for (const dir of (path ?? "/usr/local/bin:/usr/bin:/bin").split(":")) {
    if (dir === "") continue
    try {
      accessSync(`${dir}/${name}`, constants.X_OK)
      return `${dir}/${name}`
    } catch {
      // not here
    }
  }
  return undefined
}

const cache = new Map<string, SandboxSupport>()

const readVersion = (bwrap: string): string => {
  try {
    const v = Bun.spawnSync([bwrap, "--version"], { stdout: "pipe", stderr: "ignore" })
    return v.stdout.toString().trim().replace(/^bubblewrap\s*/, "") || "unknown"
  } catch {
    return "unknown"
  }
}

/**
 * Finds bubblewrap on `PATH` and starts one empty sandbox with the namespaces
 * commands get (about 10 ms, once per process), so a kernel without user
 * namespaces or a container that forbids mounts is found before a command
 * fails for it.
 */
export const probeSandbox = (env: Readonly<Record<string, string | undefined>>, platform: string = process.platform): SandboxSupport => {
  if (platform !== "linux") {
    return { available: false, reason: `the command sandbox needs Linux (this is ${platform}; macOS sandbox-exec is not supported yet)`, fix: "set sandbox.mode to \"off\" in anvil.json to silence this" }
  }
  const bwrap = onPath("bwrap", env.PATH)
  if (!bwrap) return { available: false, reason: "bubblewrap (bwrap) is not on PATH", fix: INSTALL_HINT }
  const known = cache.get(bwrap)
  if (known) return known
  let result: SandboxSupport
  try {
    const run = Bun.spawnSync([bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/sh", "-c", ":"], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      env: { PATH: env.PATH ?? "/usr/bin:/bin" },
    })
    if (run.exitCode === 0) {
      let version: string | undefined
      result = {
        available: true,
        bwrap,
        // Asked when shown (`anvil sandbox`, the stream-json init), not by every command: one more process start.
        get version() {
          return (version ??= readVersion(bwrap))
        },
      }
    } else {
      const why = run.stderr.toString().trim().split("\n")[0] ?? `exit ${run.exitCode}`
      result = {
        available: false,
        reason: `bubblewrap cannot start a sandbox here (${why})`,
        fix: /uid map|user namespace|Operation not permitted|Permission denied/i.test(why)
          ? "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)"
          : INSTALL_HINT,
      }
    }
  } catch (e) {
    result = { available: false, reason: `bubblewrap could not be started (${(e as Error).message})`, fix: INSTALL_HINT }
  }
  cache.set(bwrap, result)
  return result
}
