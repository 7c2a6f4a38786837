import { Schema, SchemaAST, SchemaIssue } from "effect"
import type { FieldError } from "../protocol/envelope.ts"
import type { SchemaModule, Tool } from "./definition.ts"
import { hint } from "../protocol/hint.ts"
import { ToolError } from "../protocol/tool-error.ts"
import { capText, checkInputLimits } from "./input-limits.ts"
import { isRecord } from "../protocol/is-record.ts"
import { PLACEHOLDER, placeholderFor } from "./placeholder.ts"
import { copiedStandIn, standIn } from "./list-repair.ts"

/**
 * The host's Schema functions a decode needs, named one by one. Using the `Schema` namespace itself as a value
 * (`tool.schemaModule ?? Schema`) makes the bundler build the whole of effect's Schema module as an object in
 * every command (`anvil tool read`: 17.8 → 14.4 ms of CPU, same run).
 */
const HOST_SCHEMA: SchemaModule = { decodeUnknownExit: Schema.decodeUnknownExit, toCodecJson: Schema.toCodecJson }

/** The Schema module that reads `tool`'s parameters: a plugin's own copy (Tool.schemaModule), else the host's. */
export const schemaModuleOf = (tool: Tool): SchemaModule => tool.schemaModule ?? HOST_SCHEMA

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const invalid = (message: string, fieldErrors: ReadonlyArray<FieldError>) =>
  new ToolError({ code: "INVALID_PARAM", message, fieldErrors })

// Field by field: a tagged error's message is not an own enumerable property, so a spread would drop it.
const errorFields = (e: ToolError) => ({ code: e.code, message: e.message, ...(e.fieldErrors ? { fieldErrors: e.fieldErrors } : {}) })

/** Parameters as given: an object, a JSON text of one, or (for one-string tools) the bare string. */
const asObject = (tool: Tool, raw: unknown): Record<string, unknown> | ToolError => {
  if (raw === undefined || raw === null) return {}
  if (isRecord(raw)) return raw
  if (typeof raw === "string") {
    const trimmed = raw.trim()
    if (trimmed.startsWith("{")) {
      try {
        const parsed: unknown = JSON.parse(trimmed)
        if (isRecord(parsed)) return parsed
      } catch (e) {
        return invalid(`Parameters are not valid JSON: ${capText((e as Error).message, 300)}`, [{ field: "(root)", message: "invalid JSON" }])
      }
    }
    const only = fieldNames(tool)
    if (only.length === 1) return { [only[0]!]: raw }
  }
  return invalid("Parameters must be a JSON object.", [{ field: "(root)", message: `expected an object, got ${Array.isArray(raw) ? "an array" : raw === null ? "null" : typeof raw}` }])
}

/** The top-level parameter names of a tool, from its schema. */
export const fieldNames = (tool: Tool): ReadonlyArray<string> => {
  const fields = (tool.parameters as unknown as { fields?: Record<string, unknown> }).fields
  return fields ? Object.keys(fields) : []
}

/** Every top-level name a call may give: the parameters and their accepted aliases. */
export const acceptedNames = (tool: Tool): ReadonlyArray<string> => [...fieldNames(tool), ...Object.keys(tool.parameterAliases ?? {})]

/** The names a nested object accepts (the object at `path` below the parameters, e.g. ["edits", 0]). */
const keysAt = (tool: Tool, path: ReadonlyArray<string>): ReadonlyArray<string> => {
  const objectIn = (ast: SchemaAST.AST): SchemaAST.AST | undefined =>
    ast._tag === "Union" ? ast.types.map(objectIn).find((t) => t !== undefined) : ast._tag === "Objects" || ast._tag === "Arrays" ? ast : undefined
  let ast: SchemaAST.AST | undefined = tool.parameters.ast
  for (const seg of path) {
    const at: SchemaAST.AST | undefined = ast && objectIn(ast)
    if (at?._tag === "Objects") ast = at.propertySignatures.find((p) => p.name === seg)?.type
    else if (at?._tag === "Arrays") ast = at.elements[Number(seg)] ?? at.rest[0]
    else return []
  }
  const last = ast && objectIn(ast)
  return last?._tag === "Objects" ? last.propertySignatures.map((p) => String(p.name)) : []
}

/** `obj` with keys named in `aliases` renamed to their canonical names (unless that name is given too). */
const renameKeys = (obj: Record<string, unknown>, aliases: Readonly<Record<string, string>>): Record<string, unknown> => {
  const renamed: Record<string, unknown> = {}
  // Own keys only, "__proto__" too (an assignment would set the prototype instead, and hide the key).
  const put = (k: string, v: unknown) => Object.defineProperty(renamed, k, { value: v, enumerable: true, writable: true, configurable: true })
  for (const [k, v] of Object.entries(obj)) {
    const canonical = Object.hasOwn(aliases, k) ? aliases[k] : undefined
    if (canonical !== undefined) {
      if (!Object.hasOwn(obj, canonical)) put(canonical, v)
    } else put(k, v)
  }
  return renamed
}

const jsonCodecs = new WeakMap<Tool["parameters"], Schema.Codec<unknown, unknown, never, never> | null>()

/**
 * The parameters decoded as the JSON form their JSON Schema describes. The
 * model is shown the schema of that form: `Schema.optional(Schema.Number)`
 * there allows null (for "absent") and "NaN"/"Infinity" (for those numbers),
 * which a plugin's own schema refuses when given as they are. Undefined when
 * that form refuses them too (or the schema has none).
 */
const decodeAsJson = (tool: Tool, params: Record<string, unknown>): { readonly value: unknown } | undefined => {
  let codec = jsonCodecs.get(tool.parameters)
  if (codec === undefined) {
    try {
      codec = schemaModuleOf(tool).toCodecJson(tool.parameters)
    } catch {
      codec = null
    }
    jsonCodecs.set(tool.parameters, codec)
  }
  if (codec === null) return undefined
  try {
    const exit = schemaModuleOf(tool).decodeUnknownExit(codec, { errors: "all", onExcessProperty: "error" })(params)
    return exit._tag === "Success" ? { value: exit.value } : undefined
  } catch {
    return undefined
  }
}

/**
 * Decodes a call's parameters: accepted aliases are renamed to their canonical
 * names, then the
 * schema decodes. Every problem is reported at once as INVALID_PARAM with
 * field_errors, unknown keys included.
 */
export const decodeParams = (tool: Tool, raw: unknown): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ToolError } => {
  const obj = asObject(tool, raw)
  if (obj instanceof ToolError) return { ok: false, error: obj }
  const limit = checkInputLimits(obj)
  if (limit !== undefined) {
    return { ok: false, error: invalid(`Invalid parameters for ${tool.name}: ${limit.field}: ${limit.message}`, [limit]) }
  }
  const aliases = tool.parameterAliases ?? {}
  const renamed = renameKeys(obj, aliases)
  // Aliases of fields inside a list's items ("edits[].old_str"), grouped by list.
  const itemAliases = new Map<string, Record<string, string>>()
  for (const [k, canonical] of Object.entries(aliases)) {
    const m = /^([^[\]]+)\[\]\.(.+)$/.exec(k)
    if (m) itemAliases.set(m[1]!, { ...itemAliases.get(m[1]!), [m[2]!]: canonical })
  }
  for (const [list, names] of itemAliases) {
    const items = renamed[list]
    if (Array.isArray(items)) renamed[list] = items.map((item) => (isRecord(item) ? renameKeys(item, names) : item))
  }
  const copied = copiedStandIn(renamed)
  if (copied !== undefined) {
    const why = `${copied.field} is "${copied.value}", a stand-in a recommended step shows, not a value`
    return {
      ok: false,
      error: new ToolError({
        code: "INVALID_PARAM",
        message: `Invalid parameters for ${tool.name}: ${capText(why, 300)}`,
        fieldErrors: [{ field: capText(copied.field, 200), message: `"${copied.value}" is a stand-in, not a value` }],
        nextStep: `call ${tool.title} again with ${capText(copied.field, 200)} written out: ${copied.value === PLACEHOLDER ? "the value it needs" : "the value given for it in the earlier call"}.`,
      }),
    }
  }
  const exit = schemaModuleOf(tool).decodeUnknownExit(tool.parameters, { errors: "all", onExcessProperty: "error" })(renamed)
  if (exit._tag === "Success") return { ok: true, value: exit.value }
  const asJson = tool.jsonSchema === undefined ? decodeAsJson(tool, renamed) : undefined
  if (asJson !== undefined) return { ok: true, value: asJson.value }
  const squashed = exit.cause.reasons.find((r) => r._tag === "Fail") as { error?: unknown } | undefined
  const schemaError = squashed?.error as { issue?: SchemaIssue.Issue } | undefined
  const issues = schemaError?.issue ? formatter(schemaError.issue).issues : []
  const known = fieldNames(tool)
  const fieldErrors: Array<FieldError> = issues.map((i) => {
    const segments = (i.path ?? []).map((p) => String(typeof p === "object" ? (p as { key: unknown }).key : p))
    const field = segments.length > 0 ? segments.join(".") : "(root)"
    // An unknown key inside an item (edits[0].bogus) names what that item accepts, not the top-level parameters.
    const accepted = segments.length > 1 ? keysAt(tool, segments.slice(0, -1)) : known
    // A struct without fields (todoread) reports an extra key as "Expected never" rather than as an excess property.
    const unknownKey =
      i.message === "Expected no excess property" || (i.message === "Expected never" && accepted.length === 0 && segments.length > 0)
    const what = accepted.length === 0 ? "this tool takes no parameters" : `accepted: ${accepted.join(", ")}`
    // Schema's messages may quote the value given: never more than a prefix of it.
    return {
      field: capText(field, 200),
      message: unknownKey ? `unknown ${segments.length > 1 ? "field" : "parameter"} (${what})` : capText(i.message, 500),
    }
  })
  const summary = capText(fieldErrors.map((f) => `${f.field}: ${f.message}`).join("; "))
  const error = invalid(`Invalid parameters for ${tool.name}: ${summary || "could not decode"}`, fieldErrors.slice(0, 50))
  // The next step: the same tool with each parameter at fault to be given again (unknown ones are just left out).
  const redo = [...new Set(fieldErrors.filter((f) => !f.message.startsWith("unknown ")).map((f) => f.field.split(".")[0]!))].filter((f) => known.includes(f))
  return { ok: false, error: redo.length > 0 ? new ToolError({ ...errorFields(error), hints: [hint(tool.title, "high", Object.fromEntries(redo.map((f) => [f, standIn(f, fieldErrors, renamed, (p, v) => placeholderFor(tool, p, v))])))] }) : error }
}
