import type { Readable, Writable } from "node:stream"
import { dieWithAnvil } from "../process/die-with-parent.ts"
import { startManaged, type ManagedProcess } from "../process/managed-process.ts"

/** A running server process: its pid (also its process group), stdio as Node streams, and how it ended. */
export interface ServerProcess {
  readonly pid: number
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable
  /** Resolves when the process has exited (code or signal). */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: string | null }>
  /** Ends the whole tree (TERM, `graceMs`, KILL) and resolves when nothing of it is left. */
  readonly stop: (graceMs: number) => Promise<void>
}

/**
 * Starts a language server as a managed process: its own process group, the
 * anvil mark in its environment, ended on every way anvil exits, and killed by
 * the kernel if anvil is (pdeathsig), so no server outlives anvil. Throws
 * ProcessSpawnError when it cannot start.
 */
export const spawnServer = (
  name: string,
  program: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): ServerProcess => {
  const managed: ManagedProcess = startManaged({
    argv: [program, ...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    label: `lsp server ${name}`,
    killGraceMs: 1000,
    ...(dieWithAnvil ? { wrap: dieWithAnvil } : {}),
  })
  const streams = managed.nodeStreams()
  const { stdin, stdout, stderr } = streams
  if (!stdin || !stdout || !stderr) throw new Error("a managed server process without pipes")
  // A server writing to or reading from a closed pipe must not take anvil down.
  for (const s of [stdin, stdout, stderr]) s.on("error", () => {})
  return {
    pid: managed.pid,
    stdin,
    stdout,
    stderr,
    exited: managed.exited.then((e) => ({ code: e.exitCode, signal: e.signal })),
    stop: (graceMs) => managed.stop(graceMs),
  }
}
