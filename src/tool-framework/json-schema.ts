import { Schema } from "effect"
import type { Tool } from "./definition.ts"

/**
 * A tool's parameters as the JSON Schema the model (and `anvil tools --json`)
 * is given: always an object schema, `additionalProperties: false` because the
 * decoder rejects unknown keys, and any shared definitions kept as `$defs`.
 * A tool that brings its own JSON Schema (an MCP tool) is given that one.
 * An empty struct comes out of Schema as `{"not":{"type":"null"}}`, which model
 * APIs refuse, so it becomes an object with no properties.
 */
export const parameterJsonSchema = (tool: Tool): Record<string, unknown> => {
  if (tool.jsonSchema) return { ...tool.jsonSchema }
  const document = Schema.toJsonSchemaDocument(tool.parameters)
  const raw = document.schema as Record<string, unknown>
  const schema: Record<string, unknown> = raw.type === "object" ? { ...raw } : { type: "object", properties: {} }
  schema.additionalProperties = false
  const defs = document.definitions as Record<string, unknown> | undefined
  if (defs && Object.keys(defs).length > 0) schema.$defs = defs
  return schema
}
