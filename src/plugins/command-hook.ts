import { ProcessSpawnError, startManaged, type SpawnWrap } from "../process/managed-process.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"

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
  /** stdout went past STDOUT_LIMIT: `stdout` is its beginning only. */
  readonly stdoutCut?: boolean
}

/**
 * stdout kept: a JSON answer may carry a whole new tool input (`updatedInput` of a large Write), so its limit is
 * far above any answer's; cut, it would not parse, and a refusal at its end would be lost.
 */
export const STDOUT_LIMIT = 16 * 1024 * 1024
/** stderr kept: a message (the reason of an exit 2, a failure's last words). */
const STDERR_LIMIT = 64 * 1024
/** How long output may still arrive after the hook exited (or after what it left running was ended). */
const OUTPUT_GRACE_MS = 200

/** Reads a stream into memory (at most `limit` bytes kept); `cancel` stops waiting for its end. */
const collect = (stream: ReadableStream<Uint8Array> | undefined, limit: number) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  const reader = stream?.getReader()
  const done = (async () => {
    try {
      for (;;) {
        const r = await reader!.read()
        if (r.done) return
        if (size < limit) chunks.push(r.value.subarray(0, limit - size))
        size += r.value.length
      }
    } catch {
      // Cancelled, or the pipe broke: what was read stays.
    }
  })()
  return {
    done: reader ? done : Promise.resolve(),
    text: () => Buffer.concat(chunks).toString("utf8"),
    cut: () => size > limit,
    cancel: () => void reader?.cancel().catch(() => undefined),
  }
}

/** Waits for `work` at most `ms`; the timer goes with the wait, so that a hook done at once holds no exit for `ms`. */
const within = (work: Promise<unknown>, ms: number): Promise<unknown> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([work, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer))
}

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
  const out = collect(child.stdout, STDOUT_LIMIT)
  const err = collect(child.stderr, STDERR_LIMIT)
  const exit = await child.exited
  clearTimeout(timer)
  // The hook is done when it exits, not when its output pipes close: what it left running in the background
  // (`server &`) may hold them open for as long as it runs. Its output gets a moment, then that ends with it.
  const reads = Promise.all([out.done, err.done])
  await within(reads, OUTPUT_GRACE_MS)
  await child.stop()
  await within(reads, OUTPUT_GRACE_MS)
  out.cancel()
  err.cancel()
  await within(feed, OUTPUT_GRACE_MS)
  return {
    exitCode: timedOut ? 124 : (exit.exitCode ?? 128),
    stdout: out.text(),
    stderr: timedOut ? `timed out after ${input.timeoutMs} ms` : err.text(),
    timedOut,
    ...(out.cut() ? { stdoutCut: true } : {}),
  }
}
