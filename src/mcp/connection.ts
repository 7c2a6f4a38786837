import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult, Prompt, Resource, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js"
import { VERSION } from "../version.ts"
import { maskSecrets, type ServerSpec } from "./server-config.ts"
import { ManagedStdioTransport, type ExitReport } from "./stdio-transport.ts"

/** A tool as the server lists it. */
export type McpToolInfo = SdkTool

/** One live session with a server: the only thing the rest of anvil knows of the client library. */
export interface McpConnection {
  readonly serverName: string
  readonly serverVersion: string
  /** The protocol version both sides agreed on (2025-11-25 down to 2024-10-07). */
  readonly protocolVersion: string
  /** "stdio", "http" or "sse" (the last when streamable HTTP was refused and SSE answered). */
  readonly transport: "stdio" | "http" | "sse"
  readonly instructions: string | undefined
  readonly listTools: (timeoutMs: number) => Promise<ReadonlyArray<McpToolInfo>>
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options: {
      readonly timeoutMs: number
      readonly signal?: AbortSignal
      readonly onProgress?: (progress: { readonly progress: number; readonly total?: number; readonly message?: string }) => void
    },
  ) => Promise<CallToolResult>
  readonly listResources: (timeoutMs: number) => Promise<ReadonlyArray<Resource>>
  readonly listPrompts: (timeoutMs: number) => Promise<ReadonlyArray<Prompt>>
  readonly hasCapability: (name: "tools" | "resources" | "prompts") => boolean
  readonly close: () => Promise<void>
}

export interface ConnectHooks {
  /** The server said its tool list changed (listChanged): the new list. */
  readonly onToolsChanged: (tools: ReadonlyArray<McpToolInfo>) => void
  /** The connection ended on its own (process exit, stream closed); the message says why. */
  readonly onClosed: (reason: string) => void
}

/** The SDK, loaded on first use so that anvil without MCP servers never pays for it. */
const loadSdk = async () => {
  const [{ Client }, { StreamableHTTPClientTransport }, { SSEClientTransport }, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ])
  return { Client, StreamableHTTPClientTransport, SSEClientTransport, types }
}

/** Why a stdio server went away, in one line: exit code or signal and its last stderr lines. */
export const describeExit = (report: ExitReport): string => {
  const how = report.signal ? `was killed by ${report.signal}` : `exited with code ${report.code}`
  const tail = report.stderrTail.split("\n").slice(-5).join("\n").trim()
  return tail ? `the server ${how}; its stderr ends:\n${tail}` : `the server ${how} (no stderr)`
}

/** An answer the SDK's schema refused (its issues, e.g. `content: expected array`), in one line. */
const invalidAnswer = (error: unknown): string | undefined => {
  const issues = (error as { issues?: unknown })?.issues
  if (!Array.isArray(issues) || issues.length === 0) return undefined
  const parts = issues.slice(0, 3).map((i: { path?: ReadonlyArray<unknown>; message?: unknown }) =>
    `${Array.isArray(i.path) && i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${String(i.message ?? "invalid")}`,
  )
  return `the server's answer is not valid MCP (${parts.join("; ")}${issues.length > 3 ? `; and ${issues.length - 3} more problems` : ""})`
}

/** A connection failure, with secrets masked and the likely cause named. */
const explain = (error: unknown, spec: ServerSpec, exit: ExitReport | undefined, startup?: number): string => {
  const message = invalidAnswer(error) ?? (error instanceof Error ? error.message : String(error))
  let text: string
  if (exit) text = describeExit(exit)
  else if (/protocol version is not supported/i.test(message)) text = `protocol mismatch: ${message}`
  else if (startup !== undefined && (error as { code?: unknown })?.code === -32001) {
    text = `timeout: the server did not finish the start-up handshake within ${startup} ms ("startupTimeout" in its settings)`
  } else if (/timed? ?out/i.test(message)) text = `timeout: ${message}`
  else if (startup !== undefined && spec.transport.kind !== "stdio") {
    const code = (error as { code?: unknown })?.code
    const auth = code === 401 || code === 403 || /unauthori[sz]ed/i.test(message)
    text = `cannot connect to ${spec.transport.url}: ${message}${auth ? ' (the server wants credentials: set them in "headers", e.g. "Authorization": "Bearer ${TOKEN}")' : ""}`
  }
  else text = message
  return maskSecrets(text, spec.secrets)
}

/** The ids of the requests a POST body carries (one message or a batch). */
const requestIds = (body: unknown): Array<string | number> => {
  if (typeof body !== "string") return []
  try {
    const parsed: unknown = JSON.parse(body)
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      m && typeof m === "object" && "method" in m && (typeof m.id === "string" || typeof m.id === "number") ? [m.id as string | number] : [],
    )
  } catch {
    return []
  }
}

/**
 * A fetch for streamable HTTP that notices a request's event stream ending
 * without its answer: the server went away during the call (or dropped it).
 * The SDK then waits for the call's deadline (ten minutes by default), so each
 * request on that stream is answered with a connection error instead. A stream
 * that gave event ids is left alone: the SDK resumes it and the answer may
 * still come. An answer already delivered makes the stand-in a stray response
 * for an unknown id, which the client ignores.
 */
const watchingFetch =
  (unanswered: (id: string | number) => void): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init)
    const ids = init?.method === "POST" ? requestIds(init.body) : []
    if (ids.length === 0 || !response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let pending = ""
    let resumable = false
    const ended = () => {
      // After the SDK's stream pipeline has delivered what came before the end.
      if (!resumable) setTimeout(() => ids.forEach(unanswered), 20)
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            controller.close()
            ended()
            return
          }
          if (!resumable) {
            const lines = (pending + decoder.decode(value, { stream: true })).split(/\r?\n|\r/)
            pending = lines.pop() ?? ""
            resumable = lines.some((l) => /^id:\s*\S/.test(l))
          }
          controller.enqueue(value)
        } catch (error) {
          controller.error(error)
          ended()
        }
      },
      cancel: (reason) => reader.cancel(reason),
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }) as typeof fetch

/** Wraps a transport to learn the negotiated protocol version. */
const watchVersion = (transport: Transport, seen: { version: string }): Transport => {
  const original = transport.setProtocolVersion?.bind(transport)
  transport.setProtocolVersion = (version: string) => {
    seen.version = version
    original?.(version)
  }
  return transport
}

/**
 * Opens a session with a server: starts the process or opens the HTTP stream,
 * negotiates the protocol, and watches for list changes. Streamable HTTP that
 * the server refuses (4xx on the first POST) is retried once over SSE.
 */
export const connect = async (
  spec: ServerSpec,
  baseEnv: Readonly<Record<string, string | undefined>>,
  hooks: ConnectHooks,
  startupTimeoutMs: number,
  signal?: AbortSignal,
): Promise<McpConnection> => {
  const sdk = await loadSdk()
  let current: Transport | undefined
  const onAbort = () => void current?.close().catch(() => undefined)
  signal?.addEventListener("abort", onAbort, { once: true })
  const seen = { version: "" }
  let exit: ExitReport | undefined
  let closedByUs = false
  let client: Client | undefined
  let usedKind: McpConnection["transport"] = spec.transport.kind

  const makeClient = () =>
    new sdk.Client(
      { name: "anvil", version: VERSION },
      {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (!error && tools) hooks.onToolsChanged(tools)
            },
          },
        },
      },
    )

  const attempt = async (transport: Transport) => {
    if (signal?.aborted) throw new Error("cancelled")
    current = transport
    const c = makeClient()
    c.onclose = () => {
      if (closedByUs) return
      hooks.onClosed(exit ? describeExit(exit) : "the connection closed")
    }
    c.onerror = () => {
      // Stray protocol errors (a log line on stdout) are not fatal; a dead transport shows in onclose.
    }
    await c.connect(watchVersion(transport, seen), { timeout: startupTimeoutMs })
    return c
  }

  const t = spec.transport
  try {
    if (t.kind === "stdio") {
      client = await attempt(
        new ManagedStdioTransport(`mcp server ${spec.name}`, t, baseEnv, (report) => {
          exit = report
        }),
      )
    } else {
      const url = new URL(t.url)
      const requestInit = { headers: { ...t.headers } }
      if (t.kind === "sse") {
        client = await attempt(new sdk.SSEClientTransport(url, { requestInit }))
      } else {
        try {
          const lost = (id: string | number) =>
            http.onmessage?.({
              jsonrpc: "2.0",
              id,
              error: { code: -32000, message: "the server closed the call's response stream without answering" },
            })
          const http: Transport = new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch: watchingFetch(lost) })
          client = await attempt(http)
        } catch (error) {
          // Servers from before streamable HTTP answer its POST with 404/405: try the old SSE transport.
          // (401/403 are about credentials: SSE would be refused the same way.)
          const code = (error as { code?: unknown }).code
          if (typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403) {
            client = await attempt(new sdk.SSEClientTransport(url, { requestInit }))
            usedKind = "sse"
          } else throw error
        }
      }
    }
  } catch (error) {
    // Give a dying process a moment to report its exit code and stderr.
    if (t.kind === "stdio" && !exit) await new Promise((r) => setTimeout(r, 100))
    throw new Error(explain(error, spec, exit, startupTimeoutMs))
  } finally {
    signal?.removeEventListener("abort", onAbort)
  }

  const c = client
  const info = c.getServerVersion()
  const caps = c.getServerCapabilities() ?? {}
  const call = <A>(f: () => Promise<A>) =>
    f().catch((error: unknown) => {
      const code = (error as { code?: unknown })?.code
      // Streamable HTTP answers 404 to a session the server no longer knows (it restarted): this
      // connection is over and a new one, with a new session, is opened on the next call.
      if (t.kind !== "stdio" && code === 404) {
        closedByUs = true
        hooks.onClosed("the server no longer knows anvil's session (HTTP 404; it restarted?)")
        void c.close().catch(() => undefined)
        throw Object.assign(new Error("the server no longer knows anvil's session (HTTP 404; it restarted?)"), { code: -32000, sessionLost: true })
      }
      // The JSON-RPC code (timeout, invalid params, connection closed) stays with the message.
      throw Object.assign(new Error(explain(error, spec, exit)), { code })
    })
  return {
    serverName: info?.name ?? spec.name,
    serverVersion: info?.version ?? "",
    protocolVersion: seen.version,
    transport: usedKind,
    instructions: c.getInstructions(),
    hasCapability: (name) => caps[name] !== undefined,
    listTools: async (timeoutMs) => {
      const tools: Array<McpToolInfo> = []
      let cursor: string | undefined
      do {
        const page = await call(() => c.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs }))
        tools.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor)
      return tools
    },
    listResources: async (timeoutMs) => (await call(() => c.listResources({}, { timeout: timeoutMs }))).resources,
    listPrompts: async (timeoutMs) => (await call(() => c.listPrompts({}, { timeout: timeoutMs }))).prompts,
    callTool: (name, args, options) =>
      call(
        () =>
          c.callTool({ name, arguments: args }, sdk.types.CallToolResultSchema, {
            timeout: options.timeoutMs,
            // Progress keeps a call alive only up to the deadline: a chatty server cannot run forever.
            resetTimeoutOnProgress: false,
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onProgress ? { onprogress: options.onProgress } : {}),
          }) as Promise<CallToolResult>,
      ),
    close: async () => {
      closedByUs = true
      await c.close().catch(() => undefined)
    },
  }
}
