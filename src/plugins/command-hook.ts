import { ProcessSpawnError, startManaged, type SpawnWrap } from "../process/managed-process.ts"
import type { CommandConfinement } from "../sandbox/sandbox.ts"

/**
 * Runs one repository command hook (a Claude Code plugin's PreToolUse /
 * PostToolUse command): `sh -c COMMAND` in the project root with the event as
 * JSON on stdin, through the managed-process API (own process group and mark,
 * so a time-out or anvil's exit ends the command and everything it started).
 * Never throws: a command that cannot start is exit code 127 with the reason
 * on stderr; a time-out is 124.
 */

export interface CommandHookOutcome {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
}

/** Output kept per stream; a hook's answer is a line or a short JSON object. */
const MAX_OUTPUT = 64 * 1024

export const runCommandHook = async (input: {
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly stdin: string
  readonly timeoutMs: number
  /** The command sandbox for hooks that came with the repository (undefined: run as is). */
  readonly confine?: CommandConfinement
}): Promise<CommandHookOutcome> => {
  let confined: Awaited<ReturnType<CommandConfinement>> | undefined
  try {
    confined = input.confine ? await input.confine(input.cwd) : undefined
  } catch (e) {
    return { exitCode: 127, stdout: "", stderr: `cannot start the hook: ${e instanceof Error ? e.message : String(e)}`, timedOut: false }
  }
  try {
    return await runHook(input, confined?.wrap)
  } finally {
    await confined?.finish().catch(() => undefined)
  }
}

const runHook = async (input: Parameters<typeof runCommandHook>[0], wrap: SpawnWrap | undefined): Promise<CommandHookOutcome> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(input.env)) if (typeof v === "string") env[k] = v
  let child: ReturnType<typeof startManaged>
  try {
    child = startManaged({ argv: ["sh", "-c", input.command], cwd: input.cwd, env, stdin: "pipe", label: "plugin hook", killGraceMs: 500, ...(wrap ? { wrap } : {}) })
  } catch (e) {
    const message = e instanceof ProcessSpawnError ? e.message : String(e)
    return { exitCode: 127, stdout: "", stderr: `cannot start the hook: ${message}`, timedOut: false }
  }
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    void child.stop()
  }, input.timeoutMs)
  // The input is fed while the output is read (a hook may answer before it reads, or never read at all): a write
  // that the pipe could not take at once is a promise, rejected with EPIPE when the hook exits without reading.
  const feed = (async () => {
    try {
      const written: unknown = child.stdin?.write(input.stdin)
      if (written instanceof Promise) await written
      await child.stdin?.end()
    } catch {
      // The hook need not read its input.
    }
  })()
  const [stdout, stderr, exit] = await Promise.all([
    child.stdout ? new Response(child.stdout).text() : "",
    child.stderr ? new Response(child.stderr).text() : "",
    child.exited,
    feed,
  ])
  clearTimeout(timer)
  // What the hook left running in the background ends with it.
  await child.stop()
  return {
    exitCode: timedOut ? 124 : (exit.exitCode ?? 128),
    stdout: stdout.slice(0, MAX_OUTPUT),
    stderr: timedOut ? `timed out after ${input.timeoutMs} ms` : stderr.slice(0, MAX_OUTPUT),
    timedOut,
  }
}
