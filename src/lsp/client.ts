import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node"
import { LspRequestError, LspStartError } from "./errors.ts"
import { spawnServer, type ServerProcess } from "./server-process.ts"

/** A diagnostic as the server sent it (0-based UTF-16 range). */
export interface RawDiagnostic {
  readonly range: { readonly start: { line: number; character: number }; readonly end: { line: number; character: number } }
  readonly severity?: number
  readonly message: string
  readonly source?: string
  readonly code?: string | number | { readonly value: string | number }
}

/** How fresh an answer about a file is. */
export type Freshness = "current" | "stale" | "pending"

export interface DiagnosticsAnswer {
  readonly items: ReadonlyArray<RawDiagnostic>
  readonly freshness: Freshness
  /** For stale answers: how old the diagnostics are, in milliseconds. */
  readonly ageMs?: number
  /** "pull" (textDocument/diagnostic) or "push" (publishDiagnostics). */
  readonly mode: "pull" | "push"
}

interface Pushed {
  readonly version: number | undefined
  readonly items: ReadonlyArray<RawDiagnostic>
  readonly at: number
  /** The send counter when it arrived: later than the file's last send means it describes what was sent. */
  readonly seq: number
}

export interface StartOptions {
  readonly name: string
  readonly program: string
  readonly args: ReadonlyArray<string>
  readonly root: string
  readonly env: Readonly<Record<string, string>>
  readonly initializationOptions?: unknown
  readonly timeoutMs: number
}

const fileUri = (path: string) => Bun.pathToFileURL(path).href

/**
 * One running language server, spoken to over stdio with vscode-jsonrpc.
 * Keeps the open documents and their versions, the last pushed diagnostics
 * per document, and answers server requests a minimal client must answer.
 */
export class LspClient {
  private readonly docs = new Map<string, { version: number; text: string; seq: number }>()
  private readonly pushed = new Map<string, Pushed>()
  private readonly waiters = new Map<string, Set<() => void>>()
  /** Rejects of requests in flight, called when the process exits. */
  private readonly pending = new Set<() => void>()
  private seq = 0
  private stderrTail = ""
  /** Set once the process has exited (crash or stop). */
  exit: { readonly code: number | null; readonly signal: string | null } | undefined
  capabilities: Record<string, unknown> = {}
  /** Calls in progress and when the last one ended: an idle stop waits for both. */
  busy = 0
  lastActive = Date.now()

  private constructor(
    readonly name: string,
    readonly root: string,
    readonly proc: ServerProcess,
    private readonly connection: MessageConnection,
  ) {}

  get pid(): number {
    return this.proc.pid
  }

  /** What the server last wrote to stderr (for start-up and crash messages). */
  get stderr(): string {
    return this.stderrTail.trim()
  }

  static async start(options: StartOptions): Promise<LspClient> {
    let proc: ServerProcess
    try {
      proc = spawnServer(options.name, options.program, options.args, { cwd: options.root, env: options.env })
    } catch (e) {
      throw new LspStartError({ server: options.name, message: `${options.name} could not be started: ${(e as Error).message}.` })
    }
    const connection = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin))
    const client = new LspClient(options.name, options.root, proc, connection)
    proc.stderr.setEncoding("utf8")
    proc.stderr.on("data", (chunk: string) => {
      client.stderrTail = (client.stderrTail + chunk).slice(-2000)
    })
    void proc.exited.then((exit) => {
      client.exit = exit
      for (const set of client.waiters.values()) for (const wake of set) wake()
      for (const fail of client.pending) fail()
      connection.dispose()
    })
    client.listen()
    const rootUri = fileUri(options.root)
    const init = client.request<{ capabilities?: Record<string, unknown> }>(
      "initialize",
      {
        processId: process.pid,
        clientInfo: { name: "anvil" },
        rootUri,
        rootPath: options.root,
        workspaceFolders: [{ uri: rootUri, name: options.root.split("/").pop() || "root" }],
        ...(options.initializationOptions !== undefined ? { initializationOptions: options.initializationOptions } : {}),
        capabilities: {
          general: { positionEncodings: ["utf-16"] },
          workspace: { configuration: true, workspaceFolders: true },
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { versionSupport: true, relatedInformation: false },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
            hover: { contentFormat: ["markdown", "plaintext"] },
            definition: { linkSupport: true },
          },
          window: { workDoneProgress: false },
        },
      },
      options.timeoutMs,
    )
    try {
      const result = await init
      client.capabilities = result?.capabilities ?? {}
      void connection.sendNotification("initialized", {})
      return client
    } catch (e) {
      // A server that exits at start is named so (its code), not by the broken pipe the request met on the way.
      const early = await Promise.race([proc.exited, new Promise<undefined>((r) => setTimeout(r, 200).unref())])
      await proc.stop(500)
      // The server is gone; what it wrote to stderr may still be on its way through the pipe (an EPIPE on the
      // request can come first): wait for the stream's end, briefly, so the message can say why.
      await new Promise<void>((resolve) => {
        if (proc.stderr.readableEnded) return resolve()
        proc.stderr.once("end", () => resolve())
        setTimeout(resolve, 300).unref()
      })
      const detail = client.stderr ? ` Its stderr: ${client.stderr.split("\n").slice(-5).join(" | ")}` : ""
      const how = early && (early.signal ? `was killed by ${early.signal}` : `exited with code ${early.code ?? "?"}`)
      const reason = (how ? `${options.name} ${how} before answering initialize` : (e as Error).message).replace(/\.+$/, "")
      throw new LspStartError({ server: options.name, message: `${options.name} did not start: ${reason}.${detail}` })
    }
  }

  private listen() {
    const c = this.connection
    c.onNotification("textDocument/publishDiagnostics", (params: { uri: string; version?: number; diagnostics: Array<RawDiagnostic> }) => {
      this.pushed.set(params.uri, { version: params.version ?? undefined, items: params.diagnostics ?? [], at: Date.now(), seq: this.seq })
      const set = this.waiters.get(params.uri)
      if (set) for (const wake of set) wake()
    })
    // Requests a server may make of any client: answer plainly so it never waits.
    c.onRequest("workspace/configuration", (params: { items?: Array<unknown> }) => (params.items ?? []).map(() => null))
    c.onRequest("workspace/workspaceFolders", () => [{ uri: fileUri(this.root), name: this.root.split("/").pop() || "root" }])
    c.onRequest("client/registerCapability", () => null)
    c.onRequest("client/unregisterCapability", () => null)
    c.onRequest("window/workDoneProgress/create", () => null)
    c.onRequest("window/showMessageRequest", () => null)
    c.onRequest("workspace/applyEdit", () => ({ applied: false }))
    c.onNotification(() => {})
    c.onError(() => {})
    c.onClose(() => {})
    c.listen()
  }

  /** A request with a deadline; a dead server or an error answer is an LspRequestError. */
  request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    return this.active(this.send<T>(method, params, timeoutMs))
  }

  private active<T>(work: Promise<T>): Promise<T> {
    this.busy++
    return work.finally(() => {
      this.busy--
      this.lastActive = Date.now()
    })
  }

  private send<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    if (this.exit) return Promise.reject(this.deadError(method))
    return new Promise<T>((resolve, reject) => {
      const cancel = new CancellationTokenSource()
      const timer = setTimeout(() => {
        this.pending.delete(dead)
        cancel.cancel() // $/cancelRequest, so the server can drop the work
        reject(new LspRequestError({ server: this.name, method, timedOut: true, message: `${this.name} did not answer ${method} within ${timeoutMs} ms.` }))
      }, timeoutMs)
      const dead = () => reject(this.deadError(method))
      this.pending.add(dead)
      const settle = () => {
        clearTimeout(timer)
        this.pending.delete(dead)
        cancel.dispose()
      }
      this.connection.sendRequest<T>(method, params, cancel.token).then(
        (value) => {
          settle()
          resolve(value)
        },
        (e: unknown) => {
          settle()
          reject(
            this.exit
              ? this.deadError(method)
              : new LspRequestError({ server: this.name, method, timedOut: false, message: `${this.name} answered ${method} with an error: ${(e as Error).message}` }),
          )
        },
      )
    })
  }

  private deadError(method: string) {
    const how = this.exit?.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit?.code ?? "?"}`
    return new LspRequestError({ server: this.name, method, timedOut: false, message: `${this.name} ${how} before answering ${method}.` })
  }

  /** Opens the file or sends its new text; returns the version now on the server. */
  sync(path: string, languageId: string, text: string): number {
    if (this.exit) throw this.deadError("textDocument/didOpen")
    const uri = fileUri(path)
    const doc = this.docs.get(uri)
    if (doc && doc.text === text) return doc.version
    const seq = ++this.seq
    if (!doc) {
      this.docs.set(uri, { version: 1, text, seq })
      void this.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } })
      return 1
    }
    const version = doc.version + 1
    this.docs.set(uri, { version, text, seq })
    void this.connection.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] })
    return version
  }

  /** Whether the server offers pull diagnostics. */
  get pulls(): boolean {
    return this.capabilities.diagnosticProvider !== undefined && this.capabilities.diagnosticProvider !== null
  }

  /**
   * The diagnostics of a synced file. Pull when the server offers it;
   * otherwise the pushed diagnostics that arrived after the file's last send
   * (or carry its version), waiting up to `waitMs` for them. Without such an
   * answer the last older one is "stale", and no answer at all is "pending".
   */
  diagnostics(path: string, waitMs: number, timeoutMs: number): Promise<DiagnosticsAnswer> {
    return this.active(this.waitForDiagnostics(path, waitMs, timeoutMs))
  }

  private async waitForDiagnostics(path: string, waitMs: number, timeoutMs: number): Promise<DiagnosticsAnswer> {
    const uri = fileUri(path)
    if (this.pulls) {
      const report = await this.request<{ kind?: string; items?: Array<RawDiagnostic> }>(
        "textDocument/diagnostic",
        { textDocument: { uri } },
        timeoutMs,
      )
      return { items: report?.items ?? [], freshness: "current", mode: "pull" }
    }
    const doc = this.docs.get(uri)
    const isCurrent = (p: Pushed | undefined): boolean =>
      p !== undefined && doc !== undefined && (p.version !== undefined ? p.version === doc.version : p.seq >= doc.seq)
    const deadline = Date.now() + waitMs
    while (!isCurrent(this.pushed.get(uri)) && !this.exit && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const set = this.waiters.get(uri) ?? new Set()
        this.waiters.set(uri, set)
        const wake = () => {
          clearTimeout(timer)
          set.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()))
        set.add(wake)
      })
    }
    const last = this.pushed.get(uri)
    if (last && isCurrent(last)) return { items: last.items, freshness: "current", mode: "push" }
    if (this.exit) throw this.deadError("textDocument/publishDiagnostics")
    if (last) return { items: last.items, freshness: "stale", ageMs: Date.now() - last.at, mode: "push" }
    return { items: [], freshness: "pending", mode: "push" }
  }

  /** Asks the server to shut down, then ends its process group. */
  async stop(graceMs = 1000): Promise<void> {
    if (!this.exit) {
      try {
        await this.send("shutdown", null, graceMs)
      } catch {
        // it is ended below either way
      }
    }
    // No `exit` notification: a server exits the moment it reads it, and the
    // write racing the closing pipe fails with EPIPE inside the runtime's pipe
    // writer. After `shutdown` the process group is ended instead (TERM, KILL).
    this.connection.dispose()
    await this.proc.stop(graceMs)
  }
}
