import { Result, Schema, SchemaIssue } from "effect"
import { findNodeAtLocation, type Node } from "jsonc-parser"
import { claudeSettingsHint } from "./claude-keys.ts"
import { parseJsoncTree, positionAt, type TextPosition } from "./jsonc.ts"
import { nearestWord } from "./nearest.ts"
import type { ConfigWarning } from "./warning.ts"
import { AnvilConfig, keysAt } from "./schema.ts"
import { duplicateKeyWarnings } from "./duplicate-keys.ts"
import { describeOutOfRange, numbersOutOfRange } from "./number-range.ts"

export { formatWarning, type ConfigWarning } from "./warning.ts"

const decode = Schema.decodeUnknownResult(AnvilConfig)
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const dotted = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/**
 * Checks a parsed anvil.json against `AnvilConfig`: unknown keys (with the nearest valid one), values of the wrong
 * type, and keys written twice in one object. `tree` is the text's syntax tree, for the lines warnings name; without
 * it, it is made (the caller remembers the check, so an unchanged file is not parsed again).
 */
export const checkConfig = (file: string, text: string, tree: Node | undefined, value: unknown): ReadonlyArray<ConfigWarning> => {
  // The value parsed already, so the text has a tree.
  const syntax = tree ?? (parseJsoncTree(text) as { readonly tree: Node }).tree
  const duplicates = duplicateKeyWarnings(file, text, syntax)
  const where = (path: ReadonlyArray<string>, ofKey: boolean): TextPosition => {
    // An array's element is found by its number ("plugins.disabled.0"), an object's member by its name.
    let node: Node | undefined = syntax
    for (const part of path) node = node && findNodeAtLocation(node, [node.type === "array" && /^\d+$/.test(part) ? Number(part) : part])
    const target = ofKey && node?.parent?.type === "property" ? node.parent.children?.[0] : node
    return positionAt(text, target?.offset ?? 0)
  }
  const warnings: Array<ConfigWarning> = []
  // A number too large or too small to hold is said as written, once per key, with what the key expects.
  const ranges = new Map(numbersOutOfRange(text, syntax).map((n) => [dotted(n.path), n]))
  const ranged = new Set<string>()
  const rangeWarning = (key: string, expected: string | undefined): ConfigWarning => {
    const n = ranges.get(key)!
    ranges.delete(key)
    ranged.add(key)
    const next = expected ?? "write a number within ±1.7976931348623157e308 and, unless it is 0, at least 5e-324 from 0"
    return { file, ...positionAt(text, n.offset), key, kind: "invalid_value", message: `'${key}' is ${describeOutOfRange(n)}: ${next}` }
  }
  const result = decode(value, { errors: "all", onExcessProperty: "error" })
  if (Result.isSuccess(result)) return [...duplicates, ...[...ranges.keys()].map((key) => rangeWarning(key, undefined))].sort(byPlace)
  for (const issue of formatter(result.failure.issue).issues) {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null && "key" in p ? p.key : p))
    const key = dotted(path)
    if (issue.message === "Expected no excess property") {
      const parent = path.slice(0, -1)
      const near = nearestWord(path[path.length - 1]!, keysAt(parent))
      const nearest = near ? dotted([...parent, near.word]) : undefined
      const claude = claudeSettingsHint(path)
      if (claude !== undefined) {
        warnings.push({ file, ...where(path, true), key, kind: "unknown_key", message: `unknown key '${key}', a Claude Code setting: ${claude}` })
        continue
      }
      const hint = !near ? "" : near.likely ? ` — did you mean '${nearest}'?` : ` (not an anvil setting; the nearest valid key is '${nearest}')`
      warnings.push({ file, ...where(path, true), key, kind: "unknown_key", message: `unknown key '${key}'${hint}`, ...(nearest ? { nearest } : {}) })
    } else {
      const got = path.reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], value)
      const expected = issue.message.replace(/^Expected/, "expected").replace(/ \| undefined$/, "")
      if (ranges.has(key)) warnings.push(rangeWarning(key, expected))
      else if (!ranged.has(key)) {
        warnings.push({ file, ...where(path, false), key, kind: "invalid_value", message: `'${key}' is ${shown(got)}: ${expected}` })
      }
    }
  }
  // Out of range where any value is taken (a plugin's options): said all the same, since it is not what was written;
  // not under an unknown key, which is ignored whole.
  const unknown = warnings.filter((w) => w.kind === "unknown_key").map((w) => `${w.key}.`)
  for (const key of [...ranges.keys()]) if (!unknown.some((u) => `${key}.`.startsWith(u))) warnings.push(rangeWarning(key, undefined))
  return [...duplicates, ...warnings].sort(byPlace)
}

const byPlace = (a: ConfigWarning, b: ConfigWarning) => a.line - b.line || a.column - b.column
