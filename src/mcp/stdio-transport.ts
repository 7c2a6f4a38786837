import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import type { StdioTransportSpec } from "./server-config.ts"
import { startServerProcess, type ServerProcess } from "./server-process.ts"

/** How a stdio server ended, for the status line: exit code or signal and the end of its stderr. */
export interface ExitReport {
  readonly code: number | null
  readonly signal: string | null
  readonly stderrTail: string
}

/**
 * A line of stdout longer than this is no message anvil takes: a server that streams output without a line end
 * (a log flood, a binary dump) would otherwise be held in memory whole.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024

/**
 * The SDK's Transport over a server process anvil starts and owns (its own
 * process group, ended with anvil), instead of the SDK's own spawner: one JSON
 * message per line each way.
 */
export class ManagedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T) => void
  private process: ServerProcess | undefined
  private closed = false

  constructor(
    private readonly label: string,
    private readonly spec: StdioTransportSpec,
    private readonly baseEnv: Readonly<Record<string, string | undefined>>,
    private readonly onExit: (report: ExitReport) => void,
  ) {}

  async start(): Promise<void> {
    // The current line's text so far (never a line end in it); each chunk is searched once, so a long line costs
    // its length, not its length times its chunks.
    let pending = ""
    // Past MAX_LINE_CHARS the line is dropped up to its end.
    let dropping = false
    this.process = startServerProcess({
      label: this.label,
      command: this.spec.command,
      args: this.spec.args,
      cwd: this.spec.cwd,
      env: { ...this.baseEnv, ...this.spec.env },
      onStdout: (text) => {
        let start = 0
        let nl: number
        while ((nl = text.indexOf("\n", start)) >= 0) {
          const line = (pending + text.slice(start, nl)).replace(/\r$/, "")
          pending = ""
          start = nl + 1
          if (dropping) dropping = false
          else this.receive(line)
        }
        if (dropping) return
        pending += text.slice(start)
        if (pending.length > MAX_LINE_CHARS) {
          this.onerror?.(new Error(`a line of more than ${MAX_LINE_CHARS / 1024 / 1024} Mi characters on stdout, no message anvil takes; dropped up to its end: ${pending.slice(0, 200)}`))
          pending = ""
          dropping = true
        }
      },
      onExit: (code, signal, stderrTail) => {
        this.onExit({ code, signal, stderrTail })
        this.finish()
        // Whatever the server left running in its tree ends with it.
        void this.process?.stop()
      },
    })
  }

  private receive(line: string) {
    if (line.trim() === "") return
    let message: JSONRPCMessage
    try {
      message = JSON.parse(line) as JSONRPCMessage
    } catch {
      // Servers that log to stdout break the protocol; the line is skipped and reported.
      this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 200)}`))
      return
    }
    this.onmessage?.(message)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.process || this.closed) throw new Error("the server process is not running")
    await this.process.write(`${JSON.stringify(message)}\n`)
  }

  async close(): Promise<void> {
    const p = this.process
    this.finish()
    await p?.stop()
  }

  private finish() {
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}
