import { Schema } from "effect"
import type { Tool } from "../tool/definition.ts"

/**
 * A tool's parameters as the JSON Schema the model is given. Unknown keys are
 * rejected by the decoder, so the schema says so too.
 */
export const parameterJsonSchema = (tool: Tool): Record<string, unknown> => {
  const schema = { ...(Schema.toJsonSchemaDocument(tool.parameters).schema as Record<string, unknown>) }
  if (schema.type === "object") schema.additionalProperties = false
  return schema
}

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
