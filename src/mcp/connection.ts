import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { Prompt, Resource, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js"
import { isRecord } from "../protocol/is-record.ts"
import { VERSION } from "../version.ts"
import { maskSecrets, type ServerSpec } from "./server-config.ts"
import { ManagedStdioTransport, type ExitReport } from "./stdio-transport.ts"
import { describeExit, explain, fallbackFailed, issuesText, serverAnswered } from "./connect-error.ts"
import { distinctTools } from "./tool-name.ts"
import type { RawToolResult } from "./result-content.ts"

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
  /** Every tool the server lists whose definition is valid MCP. */
  /** `startupMs`: the listing is the end of a start-up of that whole limit, which its time-out names. */
  readonly listTools: (timeoutMs: number, startupMs?: number) => Promise<ReadonlyArray<McpToolInfo>>
  /** The tools the last listing left out, each as `name: why`. */
  readonly skippedTools: () => ReadonlyArray<string>
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options: {
      readonly timeoutMs: number
      readonly signal?: AbortSignal
      readonly onProgress?: (progress: { readonly progress: number; readonly total?: number; readonly message?: string }) => void
    },
  ) => Promise<RawToolResult>
  readonly listResources: (timeoutMs: number) => Promise<ReadonlyArray<Resource>>
  readonly listPrompts: (timeoutMs: number) => Promise<ReadonlyArray<Prompt>>
  readonly hasCapability: (name: "tools" | "resources" | "prompts") => boolean
  readonly close: () => Promise<void>
}

export interface ConnectHooks {
  /** The server said its tool list changed (listChanged): read it again with `listTools`. */
  readonly onToolsChanged: () => void
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

/** The stand-in error of a call whose HTTP answer stream ended without the answer. */
const STREAM_ENDED = "the server closed the call's response stream without answering"

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

/** Why an answer (a message with an id and no method) is neither a JSON-RPC result nor error; undefined when it is one. */
export const malformedAnswer = (message: unknown): string | undefined => {
  if (!isRecord(message)) return undefined
  const m = message
  if ("method" in m || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined
  if ("error" in m) {
    const e = m.error
    return isRecord(e) && typeof e.code === "number" && typeof e.message === "string" ? undefined : `its error is ${JSON.stringify(e)?.slice(0, 200)}, not {code, message}`
  }
  if (!("result" in m)) return "it has neither result nor error"
  return isRecord(m.result) ? undefined : `its result is ${JSON.stringify(m.result)?.slice(0, 200) ?? "undefined"}, not an object`
}

/**
 * Wraps a transport so that an answer the SDK cannot read (a null result, an
 * error without a message) fails its request at once: the SDK drops such a
 * message as unknown and the call would wait for its deadline.
 */
const guardAnswers = (transport: Transport): Transport => {
  let handler: Transport["onmessage"]
  const guarded: Transport["onmessage"] = (message, extra) => {
    const problem = malformedAnswer(message)
    const id = (message as { id?: string | number }).id
    if (problem === undefined || id === undefined) return handler?.(message, extra)
    handler?.({ jsonrpc: "2.0", id, error: { code: -32603, message: `the server's answer is not valid JSON-RPC: ${problem}` } }, extra)
  }
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => (handler ? guarded : undefined),
    set: (h: Transport["onmessage"]) => {
      handler = h
    },
  })
  return transport
}

/**
 * One page of the tool list. The SDK refuses a whole list for one tool whose
 * definition is not valid MCP (a missing inputSchema, say); the list is then
 * read again as plain JSON and only the valid tools are kept, the others named
 * in `skipped` with the reason.
 */
const listPage = async (c: Client, sdk: Awaited<ReturnType<typeof loadSdk>>, cursor: string | undefined, timeoutMs: number) => {
  const params = cursor ? { cursor } : {}
  try {
    const page = await c.listTools(params, { timeout: timeoutMs })
    return { tools: page.tools, nextCursor: page.nextCursor, skipped: [] as Array<string> }
  } catch (error) {
    if (issuesText(error) === undefined) throw error
    const raw = await c.request({ method: "tools/list", params }, sdk.types.ResultSchema, { timeout: timeoutMs })
    if (!Array.isArray(raw.tools)) throw error
    const tools: Array<McpToolInfo> = []
    const skipped: Array<string> = []
    for (const entry of raw.tools as ReadonlyArray<unknown>) {
      const parsed = sdk.types.ToolSchema.safeParse(entry)
      if (parsed.success) tools.push(parsed.data)
      else {
        const name = (entry as { name?: unknown } | null)?.name
        skipped.push(`${typeof name === "string" ? name : "(a tool without a name)"}: ${issuesText(parsed.error) ?? "not a tool definition"}`)
      }
    }
    return { tools, nextCursor: typeof raw.nextCursor === "string" ? raw.nextCursor : undefined, skipped }
  }
}

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
  let stray: { readonly count: number; readonly text?: string } = { count: 0 }
  /** What the server wrote that anvil could not read since `since` (a count of stray errors), for a time-out's message. */
  const strayNote = (since: number) =>
    stray.count > since && stray.text !== undefined ? `; meanwhile the server sent what anvil cannot read (${stray.text})` : ""

  const makeClient = () =>
    new sdk.Client(
      { name: "anvil", version: VERSION },
      {
        capabilities: {},
        listChanged: {
          // Not the SDK's refresh: it drops a whole list for one invalid tool, silently. `listTools` keeps the
          // valid ones and names the others, and the hub reports a refresh that fails. Not its 300 ms debounce
          // either: a call of a tool just added must find the reading under way, and wait for it (the hub).
          tools: { autoRefresh: false, debounceMs: 0, onChanged: () => hooks.onToolsChanged() },
        },
      },
    )

  // One budget for the whole start: a Streamable HTTP attempt and its SSE fallback share it, never twice over.
  const began = performance.now()
  const attempt = async (transport: Transport) => {
    if (signal?.aborted) throw new Error("cancelled")
    const budget = Math.max(1, Math.ceil(startupTimeoutMs - (performance.now() - began)))
    current = transport
    const c = makeClient()
    c.onclose = () => {
      if (closedByUs) return
      hooks.onClosed(exit ? describeExit(exit) : "the connection closed")
    }
    c.onerror = (error) => {
      // Stray protocol errors (a log line on stdout, an answer to no request) are not fatal — a dead transport
      // shows in onclose — but a call or start-up that then runs out of time names the last one.
      stray = { count: stray.count + 1, text: maskSecrets(error.message.slice(0, 300), spec.secrets) }
    }
    // The SDK's timeout covers the handshake's request only, not the transport's start: an SSE stream that
    // opens and never names its endpoint would wait for fetch's own limit (minutes). The deadline covers both.
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(Object.assign(new Error("the start-up timed out"), { code: -32001 }))
        void transport.close().catch(() => undefined)
      }, budget)
    })
    const connecting = c.connect(guardAnswers(watchVersion(transport, seen)), { timeout: budget })
    connecting.catch(() => undefined)
    try {
      await Promise.race([connecting, deadline])
    } finally {
      clearTimeout(timer)
    }
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
              error: { code: -32000, message: STREAM_ENDED },
            })
          const http: Transport = new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch: watchingFetch(lost) })
          client = await attempt(http)
        } catch (error) {
          // Servers from before streamable HTTP answer its POST with 404/405: try the old SSE transport.
          // (401/403 are about credentials: SSE would be refused the same way.)
          const code = (error as { code?: unknown }).code
          if (typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403) {
            try {
              client = await attempt(new sdk.SSEClientTransport(url, { requestInit }))
            } catch (fallbackError) {
              // The fallback's failure alone hides what the first attempt got (a 404 there means a wrong path).
              throw fallbackFailed(error, fallbackError)
            }
            usedKind = "sse"
          } else throw error
        }
      }
    }
  } catch (error) {
    const exitedFirst = exit
    // Give a dying process a moment to report its exit code and stderr.
    if (t.kind === "stdio" && !exit) await new Promise((r) => setTimeout(r, 100))
    const timedOut = (error as { code?: unknown })?.code === -32001
    // A server that answered the handshake (a JSON-RPC error, a protocol version anvil does not speak) then exits
    // because anvil closed it: its answer is the reason, not that exit.
    const cause = exitedFirst ?? (serverAnswered(error) ? undefined : exit)
    throw new Error(`${explain(error, spec, cause, startupTimeoutMs)}${timedOut ? strayNote(0) : ""}`)
  } finally {
    signal?.removeEventListener("abort", onAbort)
  }

  const c = client
  let skipped: ReadonlyArray<string> = []
  const info = c.getServerVersion()
  const caps = c.getServerCapabilities() ?? {}
  const call = <A>(f: () => Promise<A>, timeoutText?: string) => {
    const since = stray.count
    return f().catch((error: unknown) => {
      const code = (error as { code?: unknown })?.code
      // Streamable HTTP answers 404 to a session the server no longer knows (it restarted): this
      // connection is over and a new one, with a new session, is opened on the next call.
      if (t.kind !== "stdio" && code === 404) {
        closedByUs = true
        hooks.onClosed("the server no longer knows anvil's session (HTTP 404; it restarted?)")
        void c.close().catch(() => undefined)
        throw Object.assign(new Error("the server no longer knows anvil's session (HTTP 404; it restarted?)"), { code: -32000, sessionLost: true, gone: true })
      }
      // -32000 is both the SDK's "connection closed" and a server's own error code: only a
      // connection that is really over (the SDK dropped its transport, or the answer stream
      // ended without the answer) means the server went away.
      const gone = code === -32000 && (c.transport === undefined || String((error as { message?: unknown })?.message).includes(STREAM_ENDED))
      if (timeoutText !== undefined && code === -32001) throw Object.assign(new Error(maskSecrets(timeoutText, spec.secrets) + strayNote(since)), { code })
      // The JSON-RPC code (timeout, invalid params, connection closed) stays with the message.
      throw Object.assign(new Error(explain(error, spec, exit)), { code, gone, ...(code === -32001 ? { note: strayNote(since) } : {}) })
    })
  }
  return {
    serverName: info?.name ?? spec.name,
    serverVersion: info?.version ?? "",
    protocolVersion: seen.version,
    transport: usedKind,
    instructions: c.getInstructions(),
    hasCapability: (name) => caps[name] !== undefined,
    listTools: async (timeoutMs, startupMs) => {
      const tools: Array<McpToolInfo> = []
      const bad: Array<string> = []
      let cursor: string | undefined
      // Every page shares the one time limit.
      const listed = performance.now()
      do {
        const left = Math.max(1, Math.ceil(timeoutMs - (performance.now() - listed)))
        const page = await call(
          () => listPage(c, sdk, cursor, left),
          startupMs === undefined
            ? `timeout: the server did not list its tools within ${timeoutMs} ms ("startupTimeout" in its settings)`
            : `timeout: the server did not finish its start-up (the handshake and its tool list) within ${startupMs} ms ("startupTimeout" in its settings)`,
        )
        tools.push(...page.tools)
        bad.push(...page.skipped)
        cursor = page.nextCursor
      } while (cursor)
      const distinct = distinctTools(spec.name, tools)
      skipped = [...bad, ...distinct.skipped]
      return distinct.kept
    },
    skippedTools: () => skipped,
    listResources: async (timeoutMs) => (await call(() => c.listResources({}, { timeout: timeoutMs }))).resources,
    listPrompts: async (timeoutMs) => (await call(() => c.listPrompts({}, { timeout: timeoutMs }))).prompts,
    callTool: (name, args, options) =>
      call(
        () =>
          // Content blocks are not checked here: the SDK refuses a whole result for one block of a type it does
          // not know, and result-content.ts keeps every block it can show and names the others. (The SDK's type
          // asks for its own schema; this one differs only in leaving `content` unchecked.)
          c.callTool({ name, arguments: args }, sdk.types.CallToolResultSchema.omit({ content: true }) as unknown as typeof sdk.types.CallToolResultSchema, {
            timeout: options.timeoutMs,
            // Progress keeps a call alive only up to the deadline: a chatty server cannot run forever.
            resetTimeoutOnProgress: false,
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onProgress ? { onprogress: options.onProgress } : {}),
          }) as Promise<RawToolResult>,
      ),
    close: async () => {
      closedByUs = true
      await c.close().catch(() => undefined)
    },
  }
}
