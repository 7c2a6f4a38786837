import type { Tool } from "../tool-framework/definition.ts"
import { parameterJsonSchema } from "../tool-framework/json-schema.ts"
import { makeRegistry } from "../tool-framework/registry.ts"
import { loadToolsTool } from "../tools/load_tools.ts"

/**
 * What the agent may offer the model: the tools given and load_tools, through which the rarely used ones
 * (git, fetch, LSP, …) are loaded. `anvil tools` lists them all.
 */
export const offeredTools = (tools: ReadonlyArray<Tool>): ReadonlyArray<Tool> => [...tools, loadToolsTool(() => tools)]

/** load_tools when `name` reaches it (by its name, title or an alias, in any case): for `anvil tool load_tools --help`. */
export const loaderNamed = (name: string): Tool | undefined => makeRegistry([loadToolsTool(() => [])]).lookup(name)

const firstLine = (s: string) => s.trim().split("\n")[0] ?? ""

/** Where a listed tool comes from: built in, a plugin's (`plugin:NAME`) or an MCP server's (`mcp:SERVER`). */
export type ToolSourceName = "builtin" | `plugin:${string}` | `mcp:${string}`

/** `anvil tools [--json]`: every tool with where it comes from, its description and parameter schema. */
export const toolsCommand = (tools: ReadonlyArray<Tool>, json: boolean, sourceOf: (tool: Tool) => ToolSourceName = () => "builtin"): string => {
  if (json) {
    return `${JSON.stringify(
      tools.map((t) => ({
        name: t.name,
        source: sourceOf(t),
        title: t.title,
        description: t.description,
        aliases: t.aliases ?? [],
        permission: t.permission ?? "allow",
        read_only: t.readOnly ?? false,
        parameters: parameterJsonSchema(t),
      })),
      null,
      2,
    )}\n`
  }
  const width = Math.max(...tools.map((t) => t.name.length))
  const from = Math.max(...tools.map((t) => sourceOf(t).length))
  return `${tools.map((t) => `${t.name.padEnd(width)}  ${sourceOf(t).padEnd(from)}  ${firstLine(t.description)}`).join("\n")}\n`
}

/** `anvil tool <name> --help`: the tool's prompt and its parameters. */
export const toolHelp = (tool: Tool): string =>
  `${tool.name} (${tool.title}) — permission: ${tool.permission ?? "allow"}\n\n${tool.description.trim()}\n\nParameters (JSON Schema):\n${JSON.stringify(parameterJsonSchema(tool), null, 2)}\n`
