import type { Layer } from "effect"
import { UserTerminal } from "../ui/user-terminal.ts"

/** Where the CLI writes: stdout for results, stderr for diagnostics. Injected so tests can capture both. */
export interface CliIO {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  readonly readStdin: () => Promise<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The person tools may ask (question); absent means no terminal. */
  readonly terminal?: Layer.Layer<UserTerminal>
}

export const processIO = (): CliIO => ({
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  readStdin: () => new Response(Bun.stdin.stream()).text(),
  cwd: process.cwd(),
  env: process.env,
  // Prompts go to stderr so stdout keeps only the envelope; interactive when stdin and stderr are TTYs.
  terminal: UserTerminal.fromStreams(process.stdin, process.stderr),
})
