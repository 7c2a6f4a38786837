import { Schema, SchemaAST } from "effect"
import type { ConfigSection, SettingFields } from "./section.ts"
import * as Sections from "./sections/index.ts"

const sections: ReadonlyArray<ConfigSection> = Object.values(Sections)

/** Every key of anvil.json: the sections under src/config/sections merged into one Struct. */
export const AnvilConfig = Schema.Struct(Object.assign({}, ...sections.map((s) => s.fields())) as SettingFields).annotate({
  title: "anvil.json",
  description: "Settings of anvil, the coding agent (project: <root>/anvil.json; user: ~/.config/anvil/anvil.json).",
})

/** Environment variables that override a key: name → dotted key path. */
export const ENV_KEYS: Readonly<Record<string, string>> = Object.assign({}, ...sections.map((s) => s.env ?? {}))

/** The JSON Schema (draft 2020-12) of anvil.json, for editors (`$schema`) and `anvil config schema`. */
export const configJsonSchema = (): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(AnvilConfig, { onExcessProperty: "error" })
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {}),
  }
}

/** The object node a key path leads to, through records and unions (undefined: no object there). */
export const objectAt = (path: ReadonlyArray<string>, ast: SchemaAST.AST = AnvilConfig.ast): SchemaAST.Objects | undefined => {
  let node: SchemaAST.AST | undefined = ast
  for (const part of path) {
    const objects: SchemaAST.Objects | undefined = node ? asObjects(node) : undefined
    if (!objects) return undefined
    node = objects.propertySignatures.find((p) => p.name === part)?.type ?? objects.indexSignatures[0]?.type
  }
  return node ? asObjects(node) : undefined
}

const asObjects = (ast: SchemaAST.AST): SchemaAST.Objects | undefined => {
  if (SchemaAST.isObjects(ast)) return ast
  if (SchemaAST.isUnion(ast)) {
    for (const member of ast.types) {
      const found = asObjects(member)
      if (found) return found
    }
  }
  if (SchemaAST.isSuspend(ast)) return asObjects(ast.thunk())
  return undefined
}

/** The named keys of the object at `path` (empty for records and leaves). */
export const keysAt = (path: ReadonlyArray<string>): ReadonlyArray<string> =>
  objectAt(path)?.propertySignatures.map((p) => String(p.name)) ?? []

/** A leaf setting: its dotted path, its default when it has one. */
export interface SettingInfo {
  readonly key: string
  readonly fallback?: unknown
}

/** Every setting with named keys down to its leaves (records and lists are leaves), in Schema order. */
export const settingsOf = (ast: SchemaAST.AST = AnvilConfig.ast, prefix = ""): ReadonlyArray<SettingInfo> => {
  const objects = asObjects(ast)
  if (!objects || objects.propertySignatures.length === 0) return []
  return objects.propertySignatures.flatMap((p) => {
    const key = `${prefix}${String(p.name)}`
    const inner = asObjects(p.type)
    if (inner && inner.propertySignatures.length > 0) return settingsOf(p.type, `${key}.`)
    const fallback = SchemaAST.resolve(p.type)?.["default"]
    return [fallback === undefined ? { key } : { key, fallback }]
  })
}
