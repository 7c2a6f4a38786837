import type { Tool } from "../tool-framework/definition.ts"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"
import { cliPlugins, toolsWithPlugins } from "./plugin-setup.ts"
import { offeredTools, toolsCommand, type ToolSourceName } from "./tools-command.ts"
import { loadBuiltinTools } from "../tools/builtin.ts"
import { toolNameOf } from "../mcp/tool-name.ts"

/**
 * `anvil tools [--json]`: every tool a session could offer — the built-in ones, the plugins' and the MCP servers' —
 * each with where it comes from. A plugin or server that could not give its tools (broken, untrusted, failed to
 * start) is said on stderr with its next step (a plugin by its loading, a server here), and the rest are listed.
 */
export const toolsListCommand = async (io: CliIO, rootFlag: string | undefined, json: boolean, strict: boolean): Promise<number> => {
  const { plugins } = await cliPlugins(io, rootFlag, { strict })
  const listed = offeredTools(toolsWithPlugins(await loadBuiltinTools(), plugins))
  const sources = new Map<string, ToolSourceName>()
  for (const report of plugins.reports) for (const name of report.tools) sources.set(name, `plugin:${report.name}`)
  const fromServers = await mcpTools(io, rootFlag, strict, sources)
  io.out(toolsCommand([...listed, ...fromServers], json, (t) => sources.get(t.name) ?? "builtin"))
  return 0
}

/**
 * The tools of the configured MCP servers, started as `anvil mcp` starts them (each within its start-up deadline),
 * and a line on stderr for each server that gives none: failed (with why), untrusted or disabled.
 */
const mcpTools = async (io: CliIO, rootFlag: string | undefined, strict: boolean, sources: Map<string, ToolSourceName>): Promise<ReadonlyArray<Tool>> => {
  // Loaded only here: a project without servers never evaluates the MCP client.
  const { openCliHub } = await import("./mcp-command.ts")
  const hub = await openCliHub(io, rootFlag, undefined, false, strict).catch((e: unknown) => {
    if (e instanceof UsageError) throw e
    io.err(`anvil: tools: the MCP servers could not be read: ${(e as Error).message ?? String(e)}\n`)
    return undefined
  })
  if (!hub?.configured) {
    await hub?.dispose()
    return []
  }
  try {
    hub.startAll()
    await hub.settled()
    for (const p of hub.sourceProblems) io.err(`anvil: tools: ${p.source}: ${p.message}\n`)
    for (const view of hub.views()) {
      if (view.status === "connected") continue
      // The view's reason carries its own next step for an untrusted server; a failed one points at `anvil mcp`.
      const why = view.error ? `: ${view.error.replace(/\s*\n\s*/g, " ").trim()}` : view.status === "disabled" ? `: "enabled": false in ${view.source}` : ""
      io.err(`anvil: tools: MCP server '${view.name}' is ${view.status}, so its tools are not listed${why}${view.status === "failed" ? "; 'anvil mcp' shows its state" : ""}\n`)
    }
    for (const view of hub.views()) for (const t of view.tools) sources.set(toolNameOf(view.name, t.name), `mcp:${view.name}`)
    return hub.toolSource.tools()
  } finally {
    await hub.dispose()
  }
}
