import type { Prompt, Resource } from "@modelcontextprotocol/sdk/types.js"
import type { Tool } from "../tool-framework/definition.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import { connect, type McpConnection, type McpToolInfo } from "./connection.ts"
import { mcpTool, McpCallError, pendingTool, type McpProgress } from "./mcp-tool.ts"
import { toolNameOf } from "./tool-name.ts"
import { maskSecrets, type ServerSpec } from "./server-config.ts"
import { serverSpecs, standardSources, type ServerSource, type SourceProblem } from "./server-sources.ts"
import { serverTrust, type ServerTrust } from "./server-trust.ts"

/** A server's state as `anvil mcp` and the front ends show it. */
export type ServerStatus = "starting" | "connected" | "failed" | "untrusted" | "disabled"

export interface ServerView {
  readonly name: string
  readonly source: string
  readonly scope: ServerSpec["scope"]
  /** "stdio", "http" or "sse". */
  readonly transport: string
  /** The command line or URL, secrets masked. */
  readonly target: string
  readonly status: ServerStatus
  /** Why it is failed, untrusted or disabled; for a connected one, the tools left out (invalid definitions). */
  readonly error?: string
  readonly tools: ReadonlyArray<McpToolInfo>
  readonly protocolVersion?: string
  readonly serverInfo?: { readonly name: string; readonly version: string }
  readonly restarts: number
}

/** What the hub reports while it works (status changes, progress of long calls). */
export type McpEvent =
  | { readonly type: "status"; readonly server: string; readonly status: ServerStatus; readonly error?: string; readonly tools: number }
  | McpProgress

/** The status note of a server some of whose tools could not be offered. */
const skippedNote = (skipped: ReadonlyArray<string>): string =>
  `${skipped.length === 1 ? "1 tool was" : `${skipped.length} tools were`} left out: ${skipped.length === 1 ? "its definition is" : "their definitions are"} not valid MCP\n${skipped.map((s) => `  ${s}`).join("\n")}`

/** A crashed server is started again on the next call at most this many times per session. */
export const MAX_RESTARTS = 3

interface Entry {
  spec: ServerSpec
  status: ServerStatus
  error?: string
  tools: ReadonlyArray<McpToolInfo>
  adapted: Map<string, Tool>
  connection?: McpConnection
  connecting?: Promise<McpConnection>
  restarts: number
  /** Aborts a start under way (dispose). */
  abort?: AbortController
  /** The connection was lost after it had worked: the next call restarts it. */
  crashed: boolean
  /** The tool list being read again after a change (listChanged). */
  refreshing?: Promise<void>
  /** How many of those readings have not ended: a call of a tool not listed yet waits for them. */
  rereads: number
  /** A reading is queued and not begun: more changes meanwhile are read by it. */
  rereadQueued?: boolean
}

export interface McpHubOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Server definitions from elsewhere (plugin folders), after the standard files. */
  readonly extraSources?: ReadonlyArray<ServerSource>
  /** Only the extra sources: the standard files are not read (Claude Code's `--strict-mcp-config`). */
  readonly onlyExtra?: boolean
  /** Problems found beside the config files (a project plugin whose servers wait for trust), listed with theirs. */
  readonly extraProblems?: ReadonlyArray<SourceProblem>
  readonly onEvent?: (event: McpEvent) => void
  /** The trust store (default: the user's). */
  readonly trust?: ServerTrust
  /** Start project servers without asking (`--trust-mcp`, a TTY answer). */
  readonly trustAll?: boolean
}

/** All configured MCP servers of one session: their states, their tools, their connections. */
export interface McpHub {
  readonly configured: boolean
  readonly sourceProblems: ReadonlyArray<SourceProblem>
  readonly views: () => ReadonlyArray<ServerView>
  readonly spec: (name: string) => ServerSpec | undefined
  /** Starts every runnable server in the background (idempotent); never waits. */
  readonly startAll: () => void
  /** Resolves when every started server is connected or failed. */
  readonly settled: () => Promise<void>
  /**
   * Starts every runnable server (as `startAll`) and resolves once each is connected or failed, or after
   * `waitMs`, whichever comes first; never rejects. A server still starting then goes on in the background.
   */
  readonly startWithin: (waitMs: number) => Promise<void>
  /** The connection of one server: waits for a start under way, starts it when needed, restarts a crashed one (limited). */
  readonly connection: (name: string) => Promise<McpConnection>
  /** The tools of connected servers, and lookups for servers still starting or unavailable. */
  readonly toolSource: ToolSource
  /** One line per server that cannot be used, for the model. */
  readonly note: () => string
  readonly listResources: (name: string) => Promise<ReadonlyArray<Resource>>
  readonly listPrompts: (name: string) => Promise<ReadonlyArray<Prompt>>
  /** Reports progress of a running call. */
  readonly progress: (event: McpProgress) => void
  /** Whether a server that went away is started again on the next call. */
  readonly restartsAgain: (name: string) => boolean
  readonly dispose: () => Promise<void>
}

const transportOf = (spec: ServerSpec) => spec.transport.kind

const target = (spec: ServerSpec) =>
  maskSecrets(spec.transport.kind === "stdio" ? [spec.transport.command, ...spec.transport.args].join(" ") : spec.transport.url, spec.secrets)

/** A reason on one line for the system prompt: "its stderr ends:" keeps the stderr it announces, within 300 characters. */
const oneLine = (text: string): string => {
  const flat = text.replace(/\s*\n\s*/g, " ").trim()
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat
}

/**
 * Builds the hub from the standard config files (user anvil.json, project
 * .mcp.json and anvil.json) plus any extra sources. Nothing starts until
 * `startAll` or `connection` is called.
 */
export const makeMcpHub = (options: McpHubOptions): McpHub => {
  const { sources, problems } = options.onlyExtra ? { sources: [], problems: [] } : standardSources(options.root, options.env)
  const specs = serverSpecs([...sources, ...(options.extraSources ?? [])], options.root, options.env)
  const trust = options.trust ?? serverTrust(options.root, options.env)
  const emit = options.onEvent ?? (() => undefined)
  const entries = new Map<string, Entry>()
  const byPrefix = new Map<string, Entry>()
  let disposed = false

  for (const spec of specs) {
    const entry: Entry = { spec, status: "starting", tools: [], adapted: new Map(), restarts: 0, crashed: false, rereads: 0 }
    const state = spec.scope === "user" || spec.pretrusted || options.trustAll ? "trusted" : trust.state(spec)
    // Trust is settled before the definition is looked at: an untrusted server's problems (a variable it names
    // that is not set) are the project's business until the user decided to run it.
    if (!spec.enabled) {
      entry.status = "disabled"
      entry.error = `"enabled": false in ${spec.source}`
    } else if (state !== "trusted") {
      entry.status = "untrusted"
      entry.error =
        state === "changed"
          ? `its definition in ${spec.source} changed since it was trusted; review it, then run 'anvil mcp trust ${spec.name}' (or pass --trust-mcp for one run)`
          : `defined by the project (${spec.source}); review it, then run 'anvil mcp trust ${spec.name}' (or pass --trust-mcp for one run)`
    } else if (spec.problem) {
      entry.status = "failed"
      entry.error = spec.problem
    }
    // Names that differ only in characters the tool names cannot hold ("my.server", "my_server") or in case
    // would give two servers the same tool names, which model APIs refuse: the later one is not started.
    const prefix = toolNameOf(spec.name, "")
    const other = [...byPrefix].find(([p, e]) => p.toLowerCase() === prefix.toLowerCase() && e.status !== "disabled")?.[1]
    if (other && entry.status !== "disabled") {
      entry.status = "failed"
      entry.error = `its tools would have the same names as those of the server '${other.spec.name}' (${prefix}…); rename one of them in ${spec.source}`
    } else byPrefix.set(prefix, entry)
    entries.set(spec.name, entry)
  }

  const view = (e: Entry): ServerView => ({
    name: e.spec.name,
    source: e.spec.source,
    scope: e.spec.scope,
    transport: e.connection?.transport ?? transportOf(e.spec),
    target: target(e.spec),
    status: e.status,
    ...(e.error !== undefined ? { error: e.error } : {}),
    tools: e.tools,
    ...(e.connection ? { protocolVersion: e.connection.protocolVersion, serverInfo: { name: e.connection.serverName, version: e.connection.serverVersion } } : {}),
    restarts: e.restarts,
  })

  const setStatus = (e: Entry, status: ServerStatus, error?: string) => {
    e.status = status
    if (error === undefined) delete e.error
    else e.error = maskSecrets(error, e.spec.secrets)
    emit({ type: "status", server: e.spec.name, status, ...(e.error !== undefined ? { error: e.error } : {}), tools: e.tools.length })
  }

  const adopt = (e: Entry, tools: ReadonlyArray<McpToolInfo>) => {
    e.tools = tools
    e.adapted = new Map(tools.map((t) => [toolNameOf(e.spec.name, t.name).toLowerCase(), mcpTool(e.spec, t, hub)]))
  }

  /**
   * The tool list read again after the server said it changed, one refresh at a time. The valid tools of the new
   * list are kept and the invalid ones named (as at the start); a list that cannot be read at all leaves the
   * earlier one in place, and both are reported as the server's status.
   */
  const refresh = (e: Entry, c: McpConnection) => {
    if (e.rereadQueued) return
    e.rereadQueued = true
    e.rereads++
    e.refreshing = (e.refreshing ?? Promise.resolve()).then(async () => {
      e.rereadQueued = false
      try {
        if (e.connection !== c) return
        const tools = await c.listTools(e.spec.startupTimeoutMs)
        if (e.connection !== c) return
        adopt(e, tools)
        const skipped = c.skippedTools()
        setStatus(e, "connected", skipped.length > 0 ? `after its tool list changed, ${skippedNote(skipped)}` : undefined)
      } catch (error) {
        if (e.connection !== c) return
        const why = error instanceof Error ? error.message : String(error)
        setStatus(e, "connected", `its tool list changed but could not be read again (${why}); the ${e.tools.length} tools listed before are kept`)
      } finally {
        e.rereads--
      }
    })
  }

  const open = (e: Entry): Promise<McpConnection> => {
    if (e.connecting) return e.connecting
    setStatus(e, "starting")
    const abort = new AbortController()
    e.abort = abort
    const attempt = (async () => {
      // Declared first: the hooks may fire while connect() is still under way.
      let connection: McpConnection | undefined = undefined
      // startupTimeout bounds the whole start: the handshake (and an SSE fallback) and the first tool list.
      const began = performance.now()
      connection = await connect(
        e.spec,
        options.env,
        {
          onToolsChanged: () => {
            if (connection && e.connection === connection) refresh(e, connection)
          },
          onClosed: (reason) => {
            if (disposed || !connection || e.connection !== connection) return
            delete e.connection
            e.crashed = true
            setStatus(e, "failed", e.restarts < MAX_RESTARTS ? `${reason} (it is started again on the next call)` : reason)
          },
        },
        e.spec.startupTimeoutMs,
        abort.signal,
      )
      if (disposed) {
        await connection.close()
        throw new McpCallError({ kind: "unavailable", message: "anvil is shutting down" })
      }
      e.connection = connection
      const left = Math.max(1, Math.ceil(e.spec.startupTimeoutMs - (performance.now() - began)))
      const tools = connection.hasCapability("tools") ? await connection.listTools(left, e.spec.startupTimeoutMs) : []
      adopt(e, tools)
      e.crashed = false
      const skipped = connection.skippedTools()
      setStatus(e, "connected", skipped.length > 0 ? skippedNote(skipped) : undefined)
      return connection
    })()
    e.connecting = attempt
    attempt.then(
      () => {
        e.connecting = undefined
      },
      (error: unknown) => {
        e.connecting = undefined
        if (e.connection) void e.connection.close()
        delete e.connection
        if (!disposed) setStatus(e, "failed", error instanceof Error ? error.message : String(error))
      },
    )
    return attempt
  }

  const connection = async (name: string): Promise<McpConnection> => {
    const e = entries.get(name)
    if (!e) throw new McpCallError({ kind: "unavailable", message: `no MCP server named '${name}' is configured` })
    if (e.connection) return e.connection
    if (e.connecting) return e.connecting
    if (e.status === "disabled" || e.status === "untrusted") {
      throw new McpCallError({ kind: "unavailable", message: `MCP server '${name}' is ${e.status}: ${e.error}` })
    }
    if (e.status === "failed") {
      if (!e.crashed || e.spec.problem) throw new McpCallError({ kind: "unavailable", message: `MCP server '${name}' failed to start: ${e.error}` })
      if (e.restarts >= MAX_RESTARTS) {
        throw new McpCallError({ kind: "unavailable", message: `MCP server '${name}' crashed and was restarted ${MAX_RESTARTS} times; not again this session. Last error: ${e.error}` })
      }
      e.restarts++
    }
    try {
      return await open(e)
    } catch (error) {
      if (error instanceof McpCallError) throw error
      throw new McpCallError({ kind: "unavailable", message: `MCP server '${name}' failed to start: ${e.error ?? String(error)}` })
    }
  }

  const runnable = () => [...entries.values()].filter((e) => e.status === "starting" && !e.connection && !e.connecting)
  let started = false

  const lookupTool = (name: string): Tool | undefined => {
    const lower = name.toLowerCase()
    if (!lower.startsWith("mcp__")) return undefined
    for (const [prefix, e] of byPrefix) {
      if (!lower.startsWith(prefix.toLowerCase())) continue
      const tool = e.adapted.get(lower)
      if (tool) return tool
      // Not (yet) known: a call to a server still starting, or reading its changed list, waits for it (then runs
      // the tool it finds under its own name); one that cannot start says why.
      if (e.status === "connected" && e.connection && e.rereads === 0) continue
      return pendingTool(e.spec, name, name.slice(prefix.length), hub, () => knownAfterWait(e))
    }
    return undefined
  }

  /** The server's tool names once it is connected and done reading its list. */
  const knownAfterWait = async (e: Entry): Promise<ReadonlyArray<string>> => {
    await connection(e.spec.name)
    // The connection is there before its first tool list: the whole start is waited for, then a reading under way.
    await e.connecting?.catch(() => undefined)
    await e.refreshing
    // A start that failed after its handshake (its tool list) says why, as a call to it would.
    if (e.status !== "connected") await connection(e.spec.name)
    return e.tools.map((t) => toolNameOf(e.spec.name, t.name))
  }

  const hub: McpHub = {
    configured: entries.size > 0,
    sourceProblems: [...problems, ...(options.extraProblems ?? [])],
    views: () => [...entries.values()].map(view),
    spec: (name) => entries.get(name)?.spec,
    startAll: () => {
      if (started) return
      started = true
      for (const e of runnable()) void open(e).catch(() => undefined)
    },
    settled: async () => {
      await Promise.all([...entries.values()].map((e) => e.connecting?.catch(() => undefined)))
    },
    startWithin: (waitMs) => {
      hub.startAll()
      let timer: ReturnType<typeof setTimeout> | undefined
      // Cleared once all settled (dispose ends the starts under way): the timer never outlives the session.
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))
      return Promise.race([hub.settled(), bound]).finally(() => clearTimeout(timer))
    },
    connection,
    toolSource: {
      tools: () => [...entries.values()].flatMap((e) => (e.status === "connected" ? [...e.adapted.values()] : [])),
      lookup: lookupTool,
    },
    note: () =>
      [...entries.values()]
        .flatMap((e) =>
          e.status === "failed" || e.status === "untrusted"
            ? [`MCP server '${e.spec.name}' is unavailable (${e.status}: ${oneLine(e.error ?? "")}); its tools cannot be called.`]
            : e.status === "starting" && e.connecting
              ? [`MCP server '${e.spec.name}' is still starting; its tools (${toolNameOf(e.spec.name, "")}…) join the next requests once it connects.`]
              : [],
        )
        .join("\n"),
    listResources: async (name) => {
      const c = await connection(name)
      return c.hasCapability("resources") ? c.listResources(entries.get(name)!.spec.startupTimeoutMs) : []
    },
    listPrompts: async (name) => {
      const c = await connection(name)
      return c.hasCapability("prompts") ? c.listPrompts(entries.get(name)!.spec.startupTimeoutMs) : []
    },
    progress: emit,
    restartsAgain: (name) => (entries.get(name)?.restarts ?? 0) < MAX_RESTARTS,
    dispose: async () => {
      disposed = true
      await Promise.all(
        [...entries.values()].map(async (e) => {
          // A start under way is cut short: its process is ended rather than waited for.
          e.abort?.abort()
          const c = e.connection ?? (await e.connecting?.catch(() => undefined))
          delete e.connection
          await c?.close()
        }),
      )
    },
  }
  return hub
}
