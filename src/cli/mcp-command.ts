import { shownValue } from "../protocol/shown-value.ts"
import { Effect, type Layer } from "effect"
import type { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { makeMcpHub, type McpEvent, type McpHub, type ServerView } from "../mcp/mcp-hub.ts"
import { toolNameOf } from "../mcp/tool-name.ts"
import { pluginServerSources, type SourceProblem } from "../mcp/server-sources.ts"
import { serverTrust } from "../mcp/server-trust.ts"
import { pluginMcpServers } from "../plugins/plugin-extras.ts"
import { PlatformLive } from "../runtime.ts"
import { findProjectRoot } from "../workspace/project-root.ts"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"
import { commandConfig } from "./project.ts"

export const MCP_HELP = `Usage: anvil mcp [list] [--json]          each server: status, transport, source, tools
       anvil mcp tools SERVER [--json]    the server's tools with their input schemas
       anvil mcp resources SERVER [--json]
       anvil mcp prompts SERVER [--json]
       anvil mcp trust [SERVER ...]       allow the project's servers to start (all untrusted ones when none named)
       anvil mcp untrust SERVER ...

Servers come from "mcpServers" in ~/.config/anvil/anvil.json (user), the project's .mcp.json
and the project's anvil.json (later wins by name). Servers defined by the project start only once
trusted; a changed definition needs trust again. Call a tool with
  anvil tool mcp__<server>__<tool> '{"arg": "value"}'
Statuses: connected, failed (with the reason), untrusted, disabled.
`

/** The project root as the other commands find it. */
const projectRoot = (io: CliIO, root: string | undefined) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const path = yield* Path
      const given = root ?? io.env.ANVIL_ROOT
      return given ? path.resolve(io.cwd, given) : yield* findProjectRoot(io.cwd)
    }).pipe(Effect.provide(PlatformLive as Layer.Layer<FileSystem | Path>)),
  )

/** The hub of a CLI command: the configured servers and those of active Claude Code plugin folders. */
export const openCliHub = async (
  io: CliIO,
  root: string | undefined,
  onEvent?: (event: McpEvent) => void,
  /** Start the project's untrusted servers too (`anvil tool mcp__… --trust-mcp`). */
  trustAll = false,
  /** `--strict`: the configuration's warnings stop the command before any server starts. */
  strict = false,
): Promise<McpHub> => {
  const dir = await projectRoot(io, root)
  const config = await commandConfig(io, dir, { strict, trusted: true })
  const handed = pluginMcpServers({ root: dir, env: io.env, config })
  return makeMcpHub({
    root: dir,
    env: io.env,
    extraSources: pluginServerSources(handed),
    extraProblems: withheldPluginServers(pluginMcpServers({ root: dir, env: io.env, config, trustProject: true }), handed),
    ...(onEvent ? { onEvent } : {}),
    ...(trustAll ? { trustAll } : {}),
  })
}

/** The servers of project plugins not trusted yet, by plugin: said, so that "no servers" does not hide them. */
const withheldPluginServers = (
  all: ReadonlyArray<{ readonly plugin: string; readonly name: string }>,
  handed: ReadonlyArray<{ readonly plugin: string }>,
): Array<SourceProblem> => {
  const withheld = new Map<string, Array<string>>()
  for (const s of all) if (!handed.some((h) => h.plugin === s.plugin)) withheld.set(s.plugin, [...(withheld.get(s.plugin) ?? []), s.name])
  return [...withheld].map(([plugin, names]) => ({
    source: `plugin ${plugin}`,
    message: `the project's plugin is not trusted, so its MCP servers (${names.join(", ")}) were not started; review it, then run 'anvil plugins trust ${plugin}'`,
  }))
}

/** A progress notification as one stderr line. */
export const progressLine = (event: Extract<McpEvent, { type: "progress" }>): string => {
  const amount = event.total ? `${Math.round((event.progress / event.total) * 100)}%` : String(event.progress)
  return `[${event.server}/${event.tool}] progress ${amount}${event.message ? `: ${event.message}` : ""}\n`
}

const viewJson = (v: ServerView) => ({
  name: v.name,
  status: v.status,
  ...(v.error !== undefined ? { error: v.error } : {}),
  ...(v.status === "untrusted" ? { next_step: `anvil mcp trust ${v.name}` } : {}),
  transport: v.transport,
  target: v.target,
  source: v.source,
  scope: v.scope,
  ...(v.protocolVersion ? { protocol_version: v.protocolVersion } : {}),
  ...(v.serverInfo ? { server_info: v.serverInfo } : {}),
  tools: v.tools.map((t) => ({ name: toolNameOf(v.name, t.name), mcp_name: t.name, description: t.description ?? "" })),
})

const formatList = (views: ReadonlyArray<ServerView>, hub: McpHub): string => {
  const out: Array<string> = []
  for (const p of hub.sourceProblems) out.push(`Problem: ${p.source}: ${p.message}`)
  if (views.length === 0) {
    out.push('No MCP servers configured. Add "mcpServers" to anvil.json or .mcp.json (see the README, "Using MCP servers").')
    return `${out.join("\n")}\n`
  }
  const width = Math.max(4, ...views.map((v) => v.name.length))
  out.push(`${"NAME".padEnd(width)}  STATUS     TRANSPORT  TOOLS  SOURCE`)
  for (const v of views) {
    out.push(`${v.name.padEnd(width)}  ${v.status.padEnd(9)}  ${v.transport.padEnd(9)}  ${String(v.tools.length).padStart(5)}  ${v.source}`)
    const pad = " ".repeat(width + 2)
    if (v.target !== "") out.push(`${pad}${v.target}${v.protocolVersion ? `  (protocol ${v.protocolVersion}${v.serverInfo ? `, ${v.serverInfo.name} ${v.serverInfo.version}` : ""})` : ""}`)
    if (v.error) for (const line of v.error.split("\n")) out.push(`${pad}${line}`)
    if (v.tools.length > 0) out.push(`${pad}tools: ${v.tools.map((t) => toolNameOf(v.name, t.name)).join(", ")}`)
  }
  return `${out.join("\n")}\n`
}

const needServer = (hub: McpHub, name: string | undefined, verb: string) => {
  if (name === undefined) throw new UsageError(`anvil mcp ${verb}: name a server (see 'anvil mcp')`)
  if (!hub.spec(name)) throw new UsageError(`anvil mcp ${verb}: no MCP server named ${shownValue(name)} (configured: ${hub.views().map((v) => v.name).join(", ") || "none"})`)
  return name
}

/** `anvil mcp …`; returns the exit code. */
export const mcpCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict = false): Promise<number> => {
  const json = argv.includes("--json")
  const words = argv.filter((a) => a !== "--json")
  const unknownFlag = words.find((a) => a.startsWith("-"))
  if (unknownFlag) throw new UsageError(`anvil mcp: unknown option ${shownValue(unknownFlag)}`)
  const [verb = "list", ...names] = words
  const hub = await openCliHub(io, root, (e) => {
    if (e.type === "progress") io.err(progressLine(e))
  }, false, strict)
  try {
    switch (verb) {
      case "list": {
        if (names.length > 0) throw new UsageError(`anvil mcp list: unexpected argument ${shownValue(names[0]!)}`)
        hub.startAll()
        await hub.settled()
        const views = hub.views()
        if (json) io.out(`${JSON.stringify({ servers: views.map(viewJson), problems: hub.sourceProblems }, null, 2)}\n`)
        else io.out(formatList(views, hub))
        return 0
      }
      case "tools":
      case "resources":
      case "prompts": {
        const name = needServer(hub, names[0], verb)
        let items: ReadonlyArray<unknown>
        try {
          if (verb === "tools") {
            await hub.connection(name)
            items = hub.views().find((v) => v.name === name)!.tools
          } else items = verb === "resources" ? await hub.listResources(name) : await hub.listPrompts(name)
        } catch (e) {
          io.err(`anvil mcp ${verb}: ${(e as Error).message}\n`)
          return 1
        }
        if (json) {
          const out = verb === "tools" ? (items as ServerView["tools"]).map((t) => ({ ...t, name: toolNameOf(name, t.name), mcp_name: t.name })) : items
          io.out(`${JSON.stringify({ server: name, [verb]: out }, null, 2)}\n`)
        } else io.out(formatItems(name, verb, items))
        return 0
      }
      case "trust":
      case "untrust": {
        const trust = serverTrust(await projectRoot(io, root), io.env)
        const chosen = names.length > 0 ? names.map((n) => needServer(hub, n, verb)) : verb === "trust" ? hub.views().filter((v) => v.status === "untrusted").map((v) => v.name) : []
        if (verb === "untrust" && chosen.length === 0) throw new UsageError("anvil mcp untrust: name the servers")
        if (chosen.length === 0) {
          io.out("No untrusted project servers.\n")
          return 0
        }
        for (const name of chosen) {
          const spec = hub.spec(name)!
          if (spec.scope === "user") {
            io.out(`${name}: defined in your own ${spec.source}; always trusted.\n`)
            continue
          }
          if (verb === "trust") trust.trust(spec)
          else trust.untrust(spec)
          const view = hub.views().find((v) => v.name === name)!
          io.out(`${verb === "trust" ? "Trusted" : "No longer trusted"}: ${name} (${view.transport}: ${view.target}) from ${spec.source}\n`)
        }
        return 0
      }
      default:
        throw new UsageError(`anvil mcp: unknown subcommand ${shownValue(verb)} (list, tools, resources, prompts, trust, untrust)`)
    }
  } finally {
    await hub.dispose()
  }
}

const formatItems = (server: string, verb: string, items: ReadonlyArray<unknown>): string => {
  if (items.length === 0) return `The server '${server}' has no ${verb}.\n`
  const out: Array<string> = []
  for (const raw of items) {
    const item = raw as Record<string, any>
    if (verb === "tools") {
      out.push(`${toolNameOf(server, item.name)}  (${item.name})`)
      if (item.description) out.push(`  ${String(item.description).trim().replace(/\n/g, "\n  ")}`)
      out.push(`  input: ${JSON.stringify(item.inputSchema ?? {})}`)
      if (item.annotations) out.push(`  annotations: ${JSON.stringify(item.annotations)}`)
    } else if (verb === "resources") {
      out.push(`${item.uri}  ${item.name ?? ""}${item.mimeType ? `  (${item.mimeType})` : ""}`)
      if (item.description) out.push(`  ${item.description}`)
    } else {
      out.push(`${item.name}${item.arguments?.length ? `  (${item.arguments.map((a: any) => `${a.name}${a.required ? "" : "?"}`).join(", ")})` : ""}`)
      if (item.description) out.push(`  ${item.description}`)
    }
  }
  return `${out.join("\n")}\n`
}
