import { SchemaAST } from "effect"
import { isRecord } from "../protocol/is-record.ts"
import type { Tool } from "./definition.ts"
import { booleanFor, boundsOf, literalFor, literalsOf, numberFor } from "./typed-values.ts"

/** The stand-in for a value the next step asks to be given again. */
export const PLACEHOLDER = "<correct_value>"

// Deep enough for lists of objects in lists (question's questions and their options); deeper is one placeholder.
const MAX_DEPTH = 6

/** Whether `given` carries every literal field (a tag such as `"type": "bearer"`) of the struct `ast`. */
const tagsMatch = (ast: SchemaAST.AST, given: unknown): boolean =>
  ast._tag === "Objects" &&
  isRecord(given) &&
  ast.propertySignatures.some((p) => p.type._tag === "Literal") &&
  ast.propertySignatures.every((p) => p.type._tag !== "Literal" || given[String(p.name)] === p.type.literal)

/**
 * A union's member for a stand-in: the struct whose tag the value given names (auth `{"type": "bearer", …}` is
 * asked for as a bearer auth, not as the union's first kind), else its list member if it has one (a parameter
 * taken as "one string or a list" shows the list), else its first value.
 */
const valueMember = (ast: SchemaAST.AST, given?: unknown): SchemaAST.AST | undefined =>
  ast._tag === "Union"
    ? (ast.types.find((t) => tagsMatch(t, given)) ?? ast.types.find((t) => t._tag === "Arrays") ?? ast.types.find((t) => t._tag !== "Undefined" && t._tag !== "Null"))
    : ast

const fromAst = (ast: SchemaAST.AST, depth: number, given?: unknown): unknown => {
  const literals = literalsOf(ast)
  if (literals.length > 0) return literalFor(literals, given)
  const at = valueMember(ast, given)
  if (at === undefined || depth >= MAX_DEPTH) return PLACEHOLDER
  if (at._tag === "Number") return numberFor(boundsOf(at.checks ?? []), given)
  if (at._tag === "Boolean") return booleanFor(given)
  if (at._tag === "Arrays") {
    const item = at.rest[0] ?? at.elements[0]
    return item === undefined ? [] : [fromAst(item, depth + 1)]
  }
  if (at._tag === "Objects") {
    // A record (headers) shows one entry; a struct its required fields, a literal field (a tag such as "bearer") as it is.
    // A record of Never (todoread's parameters) takes no entry at all: its stand-in is the empty call, TodoRead().
    const entries = at.indexSignatures.filter((s) => s.type._tag !== "Never")
    if (at.propertySignatures.length === 0) return entries.length > 0 ? { "<name>": PLACEHOLDER } : {}
    const required = at.propertySignatures.filter((p) => !SchemaAST.isOptional(p.type))
    return Object.fromEntries(
      required.map((p) => [String(p.name), p.type._tag === "Literal" ? p.type.literal : fromAst(p.type, depth + 1)]),
    )
  }
  return PLACEHOLDER
}

/** tagsMatch for a JSON Schema member: every property with a `const` is given with that value, and there is one. */
const schemaTagsMatch = (schema: unknown, given: unknown): boolean => {
  if (!isRecord(schema) || !isRecord(schema.properties) || !isRecord(given)) return false
  const tags = Object.entries(schema.properties).filter(([, p]) => isRecord(p) && "const" in p)
  return tags.length > 0 && tags.every(([k, p]) => given[k] === (p as Record<string, unknown>).const)
}

/** The same for a tool that brings its own JSON Schema (an MCP server's, load_tools'). */
const fromJsonSchema = (schema: unknown, depth: number, given?: unknown): unknown => {
  if (!isRecord(schema) || depth >= MAX_DEPTH) return PLACEHOLDER
  const members = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  // The member whose constant fields the value given carries (its tag), else the first.
  const member = members?.find((m) => schemaTagsMatch(m, given)) ?? members?.[0]
  if (member !== undefined) return fromJsonSchema(member, depth, given)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return literalFor(schema.enum, given)
  if ("const" in schema) return schema.const
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type
  if (type === "integer" || type === "number") {
    const num = (v: unknown) => (typeof v === "number" ? v : undefined)
    const exclusiveMin = num(schema.exclusiveMinimum)
    const exclusiveMax = num(schema.exclusiveMaximum)
    return numberFor(
      {
        integer: type === "integer",
        ...(exclusiveMin !== undefined ? { min: exclusiveMin, minExclusive: true } : num(schema.minimum) !== undefined ? { min: num(schema.minimum)! } : {}),
        ...(exclusiveMax !== undefined ? { max: exclusiveMax, maxExclusive: true } : num(schema.maximum) !== undefined ? { max: num(schema.maximum)! } : {}),
      },
      given,
    )
  }
  if (type === "boolean") return booleanFor(given)
  if (type === "array") return [fromJsonSchema(schema.items, depth + 1)]
  if (type === "object") {
    const properties = isRecord(schema.properties) ? schema.properties : {}
    const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string" && k in properties) : []
    if (required.length === 0 && Object.keys(properties).length === 0 && schema.additionalProperties !== false) return { "<name>": PLACEHOLDER }
    return Object.fromEntries(required.map((k) => [k, fromJsonSchema(properties[k], depth + 1)]))
  }
  return PLACEHOLDER
}

/** The field errors' name for the parameters as a whole (not JSON, not an object). */
export const WHOLE = "(root)"

/** The parameters of a whole call: the required ones, each shaped as placeholderFor shapes it. */
const wholeCall = (tool: Tool): Record<string, unknown> => {
  // additionalProperties false: a tool's schema without properties takes no parameters, not a "<name>" entry.
  const schema = { ...tool.jsonSchema, type: "object", additionalProperties: false }
  const whole = tool.jsonSchema !== undefined ? fromJsonSchema(schema, 0) : fromAst(tool.parameters.ast, 0)
  return isRecord(whole) ? whole : {}
}

/**
 * A stand-in for parameter `field` of `tool` in a next step, shaped as the parameter is: a list as a list of one
 * item (`edits=[{"old_string": "<correct_value>", "new_string": "<correct_value>"}]`), an object with its required
 * fields, a number, a boolean or one of a set of words as a value of that type (typed-values.ts), anything else
 * `"<correct_value>"`. A list written as a string would lead the model to send a string, and a number so too.
 * `given`: the value the call had, which a typed stand-in keeps when it only came as text (`"200"` → 200).
 * WHOLE stands for the call itself: its required parameters (`Read(path="<correct_value>")`).
 */
export const placeholderFor = (tool: Tool, field: string, given?: unknown): unknown => {
  if (field === WHOLE) return wholeCall(tool)
  // A field inside an item or an object (`edits.0.replace_all`): the schema is followed down to it.
  const path = field.split(".")
  if (tool.jsonSchema !== undefined) {
    const node = path.reduce<unknown>((at, key) => (!isRecord(at) ? undefined : /^\d+$/.test(key) ? at.items : isRecord(at.properties) && Object.hasOwn(at.properties, key) ? at.properties[key] : undefined), tool.jsonSchema)
    return fromJsonSchema(node, 0, given)
  }
  const node = path.reduce<SchemaAST.AST | undefined>((at, key) => (at === undefined ? undefined : childOf(at, key)), tool.parameters.ast as SchemaAST.AST)
  return node === undefined ? PLACEHOLDER : fromAst(node, 0, given)
}

/** The schema of `key` inside `ast`: a list's item for an index, a struct's field for a name (through optional unions). */
const childOf = (ast: SchemaAST.AST, key: string): SchemaAST.AST | undefined => {
  const at = valueMember(ast)
  if (at?._tag === "Arrays") return /^\d+$/.test(key) ? (at.rest[0] ?? at.elements[Number(key)] ?? at.elements[0]) : undefined
  if (at?._tag === "Objects") return at.propertySignatures.find((p) => p.name === key)?.type
  return undefined
}
