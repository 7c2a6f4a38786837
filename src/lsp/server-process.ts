import { spawn, type ChildProcessByStdio } from "node:child_process"
import type { Readable, Writable } from "node:stream"

/** A running server process: its pid (also its process group), stdio and how it ended. */
export interface ServerProcess {
  readonly pid: number
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>
  /** Resolves when the process has exited (code or signal). */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: string | null }>
  /** Ends the process group: TERM, then KILL after `graceMs`. Resolves when the main process is gone. */
  readonly stop: (graceMs: number) => Promise<void>
}

const running = new Set<ServerProcess>()
let exitHookInstalled = false

/**
 * The one place language servers are spawned. Each server gets its own process
 * group (so helpers it starts, like shellcheck, end with it) and a marker in
 * its environment; anything still running when anvil exits is killed
 * synchronously in an exit hook, so no server outlives anvil. A server also
 * sees its stdin close when anvil dies, which ends well-behaved servers.
 */
export const spawnServer = (
  program: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): ServerProcess => {
  const child = spawn(program, [...args], {
    cwd: options.cwd,
    env: { ...options.env, ANVIL_PROC_MARK: `lsp-${process.pid}` },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  })
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }))
    child.once("error", () => resolve({ code: null, signal: null }))
  })
  const pid = child.pid ?? -1
  const handle: ServerProcess = {
    pid,
    child,
    exited,
    stop: async (graceMs) => {
      killGroup(pid, "SIGTERM")
      const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), graceMs).unref?.())
      if ((await Promise.race([exited, timer])) === "late") {
        killGroup(pid, "SIGKILL")
        await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))])
      } else {
        killGroup(pid, "SIGKILL") // helpers left in the group
      }
    },
  }
  if (pid > 0) {
    running.add(handle)
    void exited.then(() => running.delete(handle))
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on("exit", () => {
      for (const p of running) killGroup(p.pid, "SIGKILL")
    })
  }
  // A server writing to a closed pipe must not take anvil down.
  child.stdin.on("error", () => {})
  child.stdout.on("error", () => {})
  child.stderr.on("error", () => {})
  return handle
}

const killGroup = (pid: number, signal: NodeJS.Signals) => {
  if (pid <= 0) return
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}
