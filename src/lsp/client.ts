import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node"
import { isRecord } from "../protocol/is-record.ts"
import { PassThrough } from "node:stream"
import { LspRequestError, LspStartError } from "./errors.ts"
import { LspFrameFilter } from "./frame-filter.ts"
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
  /** Diagnostics the server sent that are not in LSP's shape (no range or message), left out. */
  readonly dropped: number
  readonly freshness: Freshness
  /** For stale answers: how old the diagnostics are, in milliseconds. */
  readonly ageMs?: number
  /** "pull" (textDocument/diagnostic) or "push" (publishDiagnostics). */
  readonly mode: "pull" | "push"
}

interface Pushed {
  readonly version: number | undefined
  readonly items: ReadonlyArray<RawDiagnostic>
  readonly dropped: number
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

const isPosition = (p: unknown): p is { line: number; character: number } =>
  isRecord(p) && Number.isInteger(p.line) && (p.line as number) >= 0 && Number.isInteger(p.character) && (p.character as number) >= 0

/**
 * The diagnostics of a server's answer that are in LSP's shape (a range and a message; optional fields of the
 * wrong type are left out), and how many were not: a broken server's answer is reported, never a crash.
 */
export const readDiagnostics = (raw: unknown): { readonly items: ReadonlyArray<RawDiagnostic>; readonly dropped: number } => {
  if (!Array.isArray(raw)) return { items: [], dropped: raw === undefined || raw === null ? 0 : 1 }
  const items: Array<RawDiagnostic> = []
  for (const d of raw) {
    if (!isRecord(d) || typeof d.message !== "string" || !isRecord(d.range) || !isPosition(d.range.start) || !isPosition(d.range.end)) continue
    const code = typeof d.code === "string" || typeof d.code === "number" ? d.code : isRecord(d.code) && (typeof d.code.value === "string" || typeof d.code.value === "number") ? { value: d.code.value } : undefined
    items.push({
      range: { start: d.range.start, end: d.range.end },
      message: d.message,
      ...(typeof d.severity === "number" ? { severity: d.severity } : {}),
      ...(typeof d.source === "string" ? { source: d.source } : {}),
      ...(code !== undefined ? { code } : {}),
    })
  }
  return { items, dropped: raw.length - items.length }
}

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
  /** The last error reading the server's output, for a time-out's message. */
  private streamError: string | undefined
  /** The last text the server printed on stdout outside LSP's frames (set aside, not read). */
  private printed: () => string | undefined = () => undefined
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
    // Only LSP frames reach the reader; what the server printed between them is kept for the report.
    let junk: string | undefined
    const frames = new PassThrough()
    const filter = new LspFrameFilter((text) => {
      junk = text.trim().slice(0, 300)
    })
    proc.stdout.on("data", (chunk: Buffer) => {
      for (const frame of filter.push(chunk)) frames.write(frame)
    })
    proc.stdout.on("end", () => frames.end())
    const connection = createMessageConnection(new StreamMessageReader(frames), new StreamMessageWriter(proc.stdin))
    const client = new LspClient(options.name, options.root, proc, connection)
    client.printed = () => junk
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
      throw new LspStartError({ server: options.name, message: `${options.name} did not start: ${reason}.${detail}`, stderr: client.stderr })
    }
  }

  private listen() {
    const c = this.connection
    c.onNotification("textDocument/publishDiagnostics", (params: { uri: string; version?: number; diagnostics: unknown }) => {
      if (typeof params?.uri !== "string") return
      const version = typeof params.version === "number" ? params.version : undefined
      this.pushed.set(params.uri, { version, ...readDiagnostics(params.diagnostics), at: Date.now(), seq: this.seq })
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
    // A stream error (a log line on stdout breaks LSP's framing) is not fatal by itself, but a request that then
    // runs out of time names it.
    c.onError(([error]) => {
      this.streamError = (error?.message ?? String(error)).slice(0, 300)
    })
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
        reject(new LspRequestError({ server: this.name, method, timedOut: true, message: `${this.name} did not answer ${method} within ${timeoutMs} ms${this.unreadable()}.` }))
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

  /** What anvil could not read of the server's output, as the end of a sentence ("" when nothing). */
  private unreadable(): string {
    const printed = this.printed()
    if (this.streamError) return `; what it wrote on stdout is not LSP (${this.streamError})`
    return printed ? `; it also printed on stdout what is not LSP (last: ${JSON.stringify(printed)})` : ""
  }

  private deadError(method: string) {
    const how = this.exit?.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit?.code ?? "?"}`
    const tail = this.stderr ? ` Its stderr ends: ${this.stderr.split("\n").slice(-3).join(" | ").slice(-500)}` : ""
    return new LspRequestError({ server: this.name, method, timedOut: false, message: `${this.name} ${how} before answering ${method}.${tail}` })
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
      const report = await this.request<{ kind?: string; items?: unknown } | null>("textDocument/diagnostic", { textDocument: { uri } }, timeoutMs)
      return { ...readDiagnostics(isRecord(report) ? report.items : report), freshness: "current", mode: "pull" }
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
    if (last && isCurrent(last)) return { items: last.items, dropped: last.dropped, freshness: "current", mode: "push" }
    if (this.exit) throw this.deadError("textDocument/publishDiagnostics")
    if (last) return { items: last.items, dropped: last.dropped, freshness: "stale", ageMs: Date.now() - last.at, mode: "push" }
    return { items: [], dropped: 0, freshness: "pending", mode: "push" }
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
