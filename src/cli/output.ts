import type { FileSink } from "bun"
import type { Layer } from "effect"
import { isatty } from "node:tty"
import { UserTerminal } from "../terminal/user-terminal.ts"

/** Where the CLI writes: stdout for results, stderr for diagnostics. Injected so tests can capture both. */
export interface CliIO {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  readonly readStdin: () => Promise<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The person tools may ask (question); absent means no terminal. */
  readonly terminal?: Layer.Layer<UserTerminal>
  /** Waits until everything written has reached its destination (called before the process exits). */
  readonly flush?: () => Promise<void>
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
  const write = (sink: FileSink, text: string) => {
    sink.write(text)
    void sink.flush()
  }
  return {
    out: (t) => write((out ??= Bun.stdout.writer()), t),
    err: (t) => write((err ??= Bun.stderr.writer()), t),
    readStdin: () => new Response(Bun.stdin.stream()).text(),
    cwd: process.cwd(),
    env: process.env,
    // Prompts go to stderr so stdout keeps only the envelope; interactive when stdin and stderr are TTYs.
    // isatty first: touching process.stdin/stderr creates their streams, which a non-interactive call never needs.
    ...(isatty(0) && isatty(2) ? { terminal: UserTerminal.fromStreams(process.stdin, process.stderr) } : {}),
    flush: async () => {
      await out?.flush()
      await err?.flush()
    },
  }
}
