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
    let pending = ""
    this.process = startServerProcess({
      label: this.label,
      command: this.spec.command,
      args: this.spec.args,
      cwd: this.spec.cwd,
      env: { ...this.baseEnv, ...this.spec.env },
      onStdout: (text) => {
        pending += text
        let nl: number
        while ((nl = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, nl).replace(/\r$/, "")
          pending = pending.slice(nl + 1)
          if (line.trim() === "") continue
          let message: JSONRPCMessage
          try {
            message = JSON.parse(line) as JSONRPCMessage
          } catch {
            // Servers that log to stdout break the protocol; the line is skipped and reported.
            this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 200)}`))
            continue
          }
          this.onmessage?.(message)
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
