import type { Tool } from "../tool-framework/definition.ts"
import { parameterJsonSchema } from "../tool-framework/json-schema.ts"

const firstLine = (s: string) => s.trim().split("\n")[0] ?? ""

/** `anvil tools [--json]`: every tool with its description and parameter schema. */
export const toolsCommand = (tools: ReadonlyArray<Tool>, json: boolean): string => {
  if (json) {
    return `${JSON.stringify(
      tools.map((t) => ({
        name: t.name,
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
  return `${tools.map((t) => `${t.name.padEnd(width)}  ${firstLine(t.description)}`).join("\n")}\n`
}

/** `anvil tool <name> --help`: the tool's prompt and its parameters. */
export const toolHelp = (tool: Tool): string =>
  `${tool.name} (${tool.title}) — permission: ${tool.permission ?? "allow"}\n\n${tool.description.trim()}\n\nParameters (JSON Schema):\n${JSON.stringify(parameterJsonSchema(tool), null, 2)}\n`
