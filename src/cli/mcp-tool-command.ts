import { shownValue } from "../protocol/shown-value.ts"
import type { CliIO } from "./output.ts"
import { openCliHub, progressLine } from "./mcp-command.ts"
import { toolNameOf } from "../mcp/tool-name.ts"
import { printUnknownName, toolCommand } from "./tool-command.ts"
import type { ToolCommandArgs } from "./tool-args.ts"
import { sourceWithHooks } from "../plugins/hooked-source.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import { hasPlugins, projectOf } from "./project.ts"
import { pluginToolsFor } from "./tool-plugins.ts"

/**
 * `anvil tool mcp__<server>__<tool> …`: starts only that server, runs the call
 * through the usual pipeline, the plugins' tool hooks included (Ctrl-C cancels
 * it, and the SDK sends the server the protocol's cancel), then ends the
 * server. Progress goes to stderr.
 */
export const mcpToolCommand = async (args: ToolCommandArgs, io: CliIO, root: string | undefined, strict = false): Promise<number> => {
  const hub = await openCliHub(io, root, (e) => {
    if (e.type === "progress") io.err(progressLine(e))
  }, args.trustMcp === true, strict)
  try {
    const servers = hub.views().map((v) => v.name)
    const lower = args.name.toLowerCase()
    if (!servers.some((s) => lower.startsWith(toolNameOf(s, "").toLowerCase()))) {
      const configured = servers.length > 0 ? `the configured ones are ${servers.join(", ")}` : "none is configured"
      return printUnknownName(
        args,
        io,
        `No MCP server is configured for ${shownValue(args.name)} (${configured}; see 'anvil mcp list'). Tools of a server are named mcp__SERVER__TOOL; define servers in .mcp.json or anvil.json.`,
      )
    }
    // The plugins' tool hooks apply to this call as to any (a guard on mcp__.*): the source gets them once loaded.
    const project = await projectOf(io, root, { strict })
    if (!(await hasPlugins(project, io.env))) return await toolCommand(args, [], io, root, undefined, [hub.toolSource], strict)
    let source: ToolSource = hub.toolSource
    const hooked: ToolSource = { tools: () => source.tools(), lookup: (name) => source.lookup(name) }
    const prepare = pluginToolsFor(args, io, { keepTools: true, loaded: (hooks, onProblem) => (source = sourceWithHooks(hub.toolSource, hooks, onProblem)) })
    return await toolCommand(args, [], io, root, prepare, [hooked], strict)
  } finally {
    await hub.dispose()
  }
}
