import { Schema } from "effect"
import type { Tool } from "./definition.ts"

/**
 * A tool's parameters as the JSON Schema the model (and `anvil tools --json`)
 * is given: always an object schema, `additionalProperties: false` because the
 * decoder rejects unknown keys, and any shared definitions kept as `$defs`.
 * A tool that brings its own JSON Schema (an MCP tool) is given that one.
 * An empty struct comes out of Schema as `{"not":{"type":"null"}}`, and a
 * record of nothing as an object without `properties`; model APIs refuse
 * both, so each becomes an object with no properties — at any depth (a record
 * parameter such as fetch's headers, an MCP server's nested objects).
 */
export const parameterJsonSchema = (tool: Tool): Record<string, unknown> => {
  // OpenAI's function schemas (and servers that copy its checks) refuse an object schema without properties.
  if (tool.jsonSchema) return withProperties(tool.jsonSchema) as Record<string, unknown>
  const document = Schema.toJsonSchemaDocument(tool.parameters)
  const raw = withProperties(withoutNoise(document.schema)) as Record<string, unknown>
  const schema: Record<string, unknown> = raw.type === "object" ? { ...raw } : { type: "object", properties: {} }
  schema.properties ??= {}
  schema.additionalProperties = false
  const defs = document.definitions as Record<string, unknown> | undefined
  if (defs && Object.keys(defs).length > 0) schema.$defs = withProperties(withoutNoise(defs))
  return schema
}

/**
 * Drops what says nothing but costs bytes in every model request: the
 * ±2^53 bounds Schema.Int adds (any JSON integer a model writes is inside
 * them) and `additionalProperties: true` (the default); an integer's
 * `exclusiveMinimum: n` is written as the same bound `minimum: n+1`.
 */
const withoutNoise = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutNoise)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if ((key === "minimum" && v === Number.MIN_SAFE_INTEGER) || (key === "maximum" && v === Number.MAX_SAFE_INTEGER)) continue
    if (key === "additionalProperties" && v === true) continue
    out[key] = withoutNoise(v)
  }
  const above = out.exclusiveMinimum
  if (out.type === "integer" && Number.isInteger(above) && out.minimum === undefined) {
    delete out.exclusiveMinimum
    out.minimum = (above as number) + 1
  }
  return out
}

// Keywords whose values are data, not schemas: an object there is left as it is.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"])

/** Every `type: "object"` schema, at any depth, with a `properties` (empty when it had none); the input is not changed. */
const withProperties = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withProperties)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[key] = DATA_KEYWORDS.has(key) ? v : withProperties(v)
  if (out.type === "object" && out.properties === undefined) out.properties = {}
  return out
}
