import { Data } from "effect"
import { existsSync } from "node:fs"
import { dieWithAnvil } from "../process/die-with-parent.ts"
import { ProcessSpawnError, startManaged } from "../process/managed-process.ts"

/** A long-running server process: its own process group, ended with anvil. */
export interface ServerProcess {
  readonly pid: number
  readonly write: (text: string) => Promise<void>
  /** Closes stdin, then TERM → grace → KILL on the whole tree; resolves once it is gone. */
  readonly stop: () => Promise<void>
}

export interface ServerProcessOptions {
  readonly label: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly onStdout: (text: string) => void
  /** Called once when the process has exited, with the last part of its stderr. */
  readonly onExit: (code: number | null, signal: string | null, stderrTail: string) => void
}

/** The process could not be started (command not found, not executable, bad working directory). */
export class ServerStartError extends Data.TaggedError("ServerStartError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

const STDERR_TAIL = 2000
/** How long a server may take to exit by itself once its stdin is closed. */
const EXIT_WAIT_MS = 500


/** Starts a server as a managed process (own group, marked, ended on every way out of anvil) with piped stdio. */
export const startServerProcess = (options: ServerProcessOptions): ServerProcess => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v
  if (!existsSync(options.cwd)) throw new ServerStartError(`working directory does not exist: ${options.cwd}`)
  let managed: ReturnType<typeof startManaged>
  try {
    managed = startManaged({
      argv: [options.command, ...options.args],
      cwd: options.cwd,
      env,
      stdin: "pipe",
      label: options.label,
      ...(dieWithAnvil ? { wrap: dieWithAnvil } : {}),
    })
  } catch (e) {
    throw new ServerStartError(e instanceof ProcessSpawnError ? e.message : `could not start ${options.command}: ${String(e)}`)
  }
  let stderrTail = ""
  const pump = async (stream: ReadableStream<Uint8Array> | undefined, sink: (text: string) => void) => {
    if (!stream) return
    const decoder = new TextDecoder()
    try {
      for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }))
    } catch {
      // the pipe closed
    }
  }
  const stdoutDone = pump(managed.stdout, options.onStdout)
  const stderrDone = pump(managed.stderr, (text) => {
    // Only the end is kept: a chunk longer than the tail replaces it without being copied whole.
    stderrTail = text.length >= STDERR_TAIL ? text.slice(-STDERR_TAIL) : (stderrTail + text).slice(-STDERR_TAIL)
  })
  void managed.exited.then(async (exit) => {
    // The last output is read before the exit is reported (briefly: a child may hold the pipes).
    await Promise.race([Promise.all([stdoutDone, stderrDone]), new Promise((r) => setTimeout(r, 200))])
    options.onExit(exit.exitCode, exit.signal, stderrTail.trim())
  })
  const stdin = managed.stdin!
  return {
    pid: managed.pid,
    write: async (text) => {
      stdin.write(text)
      await stdin.flush()
    },
    // The stdio shutdown of the MCP spec: close stdin, give the server a moment to finish what it
    // was sent (a cancel notification) and exit, then end the tree (TERM, grace, KILL).
    stop: async () => {
      try {
        await stdin.end()
      } catch {
        // already closed
      }
      await Promise.race([managed.exited, new Promise((r) => setTimeout(r, EXIT_WAIT_MS))])
      await managed.stop()
    },
  }
}
