import type { Node } from "jsonc-parser"
import { positionAt } from "./jsonc.ts"
import type { ConfigWarning } from "./warning.ts"

/** A value as the warning names it: objects and arrays by their kind only. */
const shown = (node: Node | undefined): string => {
  if (node?.type === "object") return "{…}"
  if (node?.type === "array") return "[…]"
  const text = JSON.stringify(node?.value) ?? "null"
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/**
 * Keys written twice in one object of anvil.json. The parsers keep the last value without a word (as
 * JSON.parse does), so a rule written twice — `"rm *": "deny"` and later `"rm *": "allow"` — would change
 * silently: each earlier occurrence is a warning at its line that names the line whose value is used.
 */
export const duplicateKeyWarnings = (file: string, text: string, tree: Node): ReadonlyArray<ConfigWarning> => {
  const warnings: Array<ConfigWarning> = []
  const visit = (node: Node, path: ReadonlyArray<string>) => {
    if (node.type === "array") {
      node.children?.forEach((child, i) => visit(child, [...path, String(i)]))
      return
    }
    if (node.type !== "object") return
    const last = new Map<string, Node>()
    for (const property of node.children ?? []) {
      const key = property.children?.[0]
      if (key !== undefined) last.set(String(key.value), property)
    }
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? []
      if (key === undefined) continue
      const name = String(key.value)
      const kept = last.get(name)!
      const dotted = [...path, name].join(".")
      if (kept !== property) {
        const here = positionAt(text, key.offset)
        const there = positionAt(text, kept.offset)
        warnings.push({
          file,
          ...here,
          key: dotted,
          kind: "duplicate_key",
          message: `'${dotted}' is set more than once: this value (${shown(value)}) is ignored, the one at line ${there.line} (${shown(kept.children?.[1])}) is used; remove one of them`,
        })
      } else if (value !== undefined) visit(value, [...path, name])
    }
  }
  visit(tree, [])
  return warnings
}
