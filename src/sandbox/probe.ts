import { accessSync, constants, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { userCacheDir } from "../workspace/state-dir.ts"

/** What the machine offers for the command sandbox. */
export type SandboxSupport =
  | {
      readonly available: true
      readonly bwrap: string
      readonly version: string
      /** util-linux's prlimit, which sets a command's process limit inside the sandbox; undefined when missing. */
      readonly prlimit: string | undefined
    }
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

const text = (path: string): string => {
  try {
    return readFileSync(path, "utf8").trim()
  } catch {
    return "-"
  }
}

const link = (path: string): string => {
  try {
    return readlinkSync(path)
  } catch {
    return "-"
  }
}

/**
 * What a probe's success depends on: this very bwrap (its inode, size and
 * time), the boot, the user, the namespaces anvil runs in (a container) and
 * the settings that allow unprivileged user namespaces. A few small reads,
 * against a sandbox start (about 10 ms of CPU) for each anvil process.
 */
const machineKey = (bwrap: string): string | undefined => {
  try {
    const s = statSync(bwrap)
    return [
      bwrap, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs, process.getuid?.() ?? "-",
      text("/proc/sys/kernel/random/boot_id"),
      text("/proc/sys/kernel/unprivileged_userns_clone"),
      text("/proc/sys/user/max_user_namespaces"),
      text("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
      link("/proc/self/ns/user"), link("/proc/self/ns/mnt"), link("/proc/self/ns/pid"),
    ].join("|")
  } catch {
    return undefined
  }
}

/**
 * A probe that succeeded is remembered in the user's cache for the same
 * machine key, so that each one-shot `anvil tool bash` does not start a
 * sandbox only to learn what the last one learned. Only success is kept:
 * should the machine change in a way the key misses, a command fails in
 * bubblewrap (it never runs unconfined for it), and a failure is probed
 * afresh every time.
 */
const rememberedFile = (env: Readonly<Record<string, string | undefined>>) => join(userCacheDir(env), "sandbox-probe")

const remembered = (file: string, key: string): boolean => text(file) === key

/**
 * Forgets a remembered success when a command's output shows bubblewrap itself
 * failing ("bwrap: …"): the next anvil process probes again, and reports what
 * stopped the sandbox. Output a command printed itself only costs one probe.
 */
export const forgetProbeIfFailed = (env: Readonly<Record<string, string | undefined>>, output: string): void => {
  if (!/(^|\n)bwrap: /.test(output)) return
  try {
    rmSync(rememberedFile(env), { force: true })
  } catch {
    // nothing to forget
  }
}

const remember = (file: string, key: string): void => {
  const tmp = `${file}.${process.pid}.tmp`
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 })
    writeFileSync(tmp, key)
    renameSync(tmp, file)
  } catch {
    // not remembered: the next process probes again
  }
}

/** Bubblewrap works: its version is asked when shown (`anvil sandbox`, the stream-json init), not by every command. */
const available = (bwrap: string, path: string | undefined): SandboxSupport => {
  let version: string | undefined
  return {
    available: true,
    bwrap,
    prlimit: onPath("prlimit", `${path ?? ""}:/usr/bin:/bin`),
    get version() {
      return (version ??= readVersion(bwrap))
    },
  }
}

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
  const key = machineKey(bwrap)
  const file = rememberedFile(env)
  if (key !== undefined && remembered(file, key)) {
    result = available(bwrap, env.PATH)
    cache.set(bwrap, result)
    return result
  }
  try {
    const run = Bun.spawnSync([bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/sh", "-c", ":"], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      env: { PATH: env.PATH ?? "/usr/bin:/bin" },
    })
    if (run.exitCode === 0) {
      result = available(bwrap, env.PATH)
      if (key !== undefined) remember(file, key)
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
