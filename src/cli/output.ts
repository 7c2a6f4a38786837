import type { FileSink } from "bun"
import type { Layer } from "effect"
import { fstatSync, statSync } from "node:fs"
import { UserTerminal } from "../terminal/user-terminal.ts"
import { visibleKeepingColours } from "../terminal/visible-text.ts"
import { watchReaderGone } from "./reader-gone.ts"

/** Where the CLI writes: stdout for results, stderr for diagnostics. Injected so tests can capture both. */
export interface CliIO {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  readonly readStdin: () => Promise<string>
  /**
   * What a pipe or file on standard input holds, for a command that already
   * has its prompt: undefined when stdin is a terminal or nothing, "silent"
   * when no byte (nor its end) arrived within `waitMs` (a parent that left
   * stdin open).
   */
  readonly readPipedStdin?: (waitMs: number) => Promise<string | "silent" | undefined>
  /** Standard input as a byte stream (`--input-format stream-json`). */
  readonly stdinStream?: () => ReadableStream<Uint8Array>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The person tools may ask (question); absent means no terminal. */
  readonly terminal?: Layer.Layer<UserTerminal>
  /** Waits until everything written has reached its destination (called before the process exits). */
  readonly flush?: () => Promise<void>
  /**
   * Calls `listener` once when the reader of standard output is gone (`| head -1` exited: a write failed with
   * EPIPE, or a pipe's poll says so while nothing is written); returns the function that stops listening. A
   * command that would otherwise go on working for nobody (a scripted run) stops on it.
   */
  readonly onOutputGone?: (listener: () => void) => () => void
  /**
   * Why standard output could not be written, when that was not its reader leaving (a full disk: ENOSPC, a file
   * over its size limit): what the command printed is lost, so its exit code must not say success.
   */
  readonly outputFailed?: () => string | undefined
}

/** Write errors that mean the reader went away (`| head -1`, a closed terminal): not a failure of the command. */
const READER_GONE = new Set(["EPIPE", "EIO", "ECONNRESET"])

/**
 * isatty(fd), loading node:tty (and with it Node's streams, ~4 ms of start-up) only for a character
 * device other than /dev/null: a pipe, a file, /dev/null or a closed descriptor is no terminal.
 */
const isTerminal = (fd: number): boolean => {
  try {
    const st = fstatSync(fd)
    if (!st.isCharacterDevice() || st.rdev === statSync("/dev/null").rdev) return false
  } catch {
    return false
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(fd)
}

/**
 * The real process's IO. stdout and stderr are written through Bun's file
 * sinks, flushed on every write: creating Node's `process.stdout` stream costs
 * a few milliseconds on every start, a tenth of a one-tool call. A sink keeps
 * what a slow reader has not taken yet, and `flush` waits for it at exit.
 */
export const processIO = (): CliIO => {
  let out: FileSink | undefined
  let err: FileSink | undefined
  let outTerminal: boolean | undefined
  let errTerminal: boolean | undefined
  // A reader that went away (`anvil tool … | head -1`: EPIPE; a closed terminal: EIO) ends that stream
  // quietly: what is left is dropped and the command finishes with its usual exit code.
  const gone = { out: false, err: false }
  let failed: string | undefined
  const noteFailure = (e: unknown) => {
    const code = (e as { code?: unknown } | undefined)?.code
    if (typeof code === "string" && !READER_GONE.has(code)) failed ??= code
  }
  // Writes the pipe or disk has not taken yet: their failure (ENOSPC) arrives after the command returned.
  const pending = new Set<Promise<unknown>>()
  const goneListeners = new Set<() => void>()
  let stopPolling: (() => void) | undefined
  // Each listener is called once: the set is emptied before they run.
  const outputGone = () => {
    gone.out = true
    stopPolling?.()
    stopPolling = undefined
    const listeners = [...goneListeners]
    goneListeners.clear()
    for (const listener of listeners) listener()
  }
  const write = (which: "out" | "err", sink: () => FileSink, text: string) => {
    if (gone[which]) return
    const lost = (e?: unknown) => {
      if (which === "err") return void (gone.err = true)
      noteFailure(e)
      outputGone()
    }
    try {
      const s = sink()
      // Both answer a number, or a promise when the pipe was full (which rejects if the reader left).
      const written: unknown = s.write(text)
      if (written instanceof Promise) {
        const settled = written.catch(lost).finally(() => pending.delete(settled))
        pending.add(settled)
      }
      const flushed: unknown = s.flush()
      if (flushed instanceof Promise) flushed.catch(lost)
    } catch (e) {
      lost(e)
    }
  }
  const settle = async (sink: FileSink | undefined, which: "out" | "err") => {
    if (sink === undefined) return
    await Promise.all(pending)
    if (gone[which]) return
    try {
      await sink.flush()
    } catch (e) {
      if (which === "out") noteFailure(e)
      gone[which] = true
    }
  }
  return {
    // On a terminal, what a listing or a notice quotes from the repository (a skill's or a plugin's description, a
    // key of its anvil.json) is shown, never acted on (terminal/visible-text.ts); piped, it is written as it is.
    // chat's own sequences (bracketed paste, readline) go to process.stdout, not through here.
    out: (t) => write("out", () => (out ??= Bun.stdout.writer()), (outTerminal ??= isTerminal(1)) ? visibleKeepingColours(t) : t),
    err: (t) => write("err", () => (err ??= Bun.stderr.writer()), (errTerminal ??= isTerminal(2)) ? visibleKeepingColours(t) : t),
    readStdin: () => new Response(Bun.stdin.stream()).text(),
    readPipedStdin: (waitMs) => readPiped(waitMs),
    stdinStream: () => Bun.stdin.stream(),
    cwd: process.cwd(),
    env: process.env,
    // Prompts go to stderr so stdout keeps only the envelope; interactive when stdin and stderr are TTYs.
    // isatty first: touching process.stdin/stderr creates their streams, which a non-interactive call never needs.
    ...(isTerminal(0) && isTerminal(2) ? { terminal: UserTerminal.fromStreams(process.stdin, process.stderr) } : {}),
    flush: async () => {
      await settle(out, "out")
      await settle(err, "err")
    },
    outputFailed: () => failed,
    onOutputGone: (listener) => {
      if (gone.out) {
        queueMicrotask(listener)
        return () => undefined
      }
      goneListeners.add(listener)
      stopPolling ??= watchReaderGone(1, outputGone)
      return () => {
        goneListeners.delete(listener)
        if (goneListeners.size === 0) {
          stopPolling?.()
          stopPolling = undefined
        }
      }
    },
  }
}

/**
 * Node's stdout/stderr streams (the spinner, readline, prompts) raise an
 * `error` event when their reader is gone; unhandled, it would crash anvil
 * mid-cleanup. Called by the commands that use those streams (creating them
 * costs start-up time that a one-tool call does not pay).
 */
export const guardNodeStreams = (): void => {
  process.stdout.on("error", () => undefined)
  process.stderr.on("error", () => undefined)
}

/**
 * How long a command waits for the first byte of piped input: `anvil run "prompt"` then goes on without it,
 * `anvil run` without a prompt and `anvil tool NAME -` fail (a parent that left stdin open must not hang a
 * script). ANVIL_STDIN_WAIT (seconds, ≥ 0) changes it for a producer slow to start; default 3 s.
 */
export const stdinWaitMs = (env: Readonly<Record<string, string | undefined>>): number => {
  const raw = env.ANVIL_STDIN_WAIT?.trim()
  const seconds = raw ? Number(raw) : NaN
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : 3000
}

const readPiped = async (waitMs: number): Promise<string | "silent" | undefined> => {
  if (isTerminal(0)) return undefined
  try {
    const st = fstatSync(0)
    if (st.isCharacterDevice()) return undefined
  } catch {
    return undefined
  }
  const reader = Bun.stdin.stream().getReader()
  const first = await Promise.race([reader.read(), Bun.sleep(waitMs).then(() => "waited" as const)])
  if (first === "waited") {
    // Cancelled, the read no longer keeps the process alive.
    await reader.cancel().catch(() => undefined)
    return "silent"
  }
  const chunks: Array<Uint8Array> = []
  let next = first
  while (!next.done) {
    chunks.push(next.value)
    next = await reader.read()
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}
