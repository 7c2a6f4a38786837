import { isAlias, isMap, isScalar, isSeq, parseDocument, type Node, type YAMLError } from "yaml"

/**
 * The YAML front matter of a SKILL.md, read with the `yaml` library (failsafe
 * schema: every value stays a string, `true` and `3` are not converted) and
 * then held to the shape skills use, so that a malformed file is reported with
 * a line and a reason instead of being half-read:
 * - top-level `key: value` lines; values are strings, lists and mappings of
 *   them, nested as deep as YAML allows (Claude Code reads any YAML there: a
 *   skill's or agent's `hooks:`, `metadata:` with lists);
 * - refused, with the reason: tabs in indentation, duplicate keys, anchors,
 *   aliases and tags, empty list items, a plain value containing `: ` that
 *   spans lines (quote it).
 * - prose on one top-level line that YAML cannot take as a plain value (`: `
 *   inside, or a first `*`, `@`, `` ` `` or `%`) is read as the text written,
 *   with a note: Claude Code reads it so (it quotes such values and parses
 *   again), and published plugins' agents and skills rely on it.
 */

export type FrontMatterValue = string | ReadonlyArray<FrontMatterValue> | { readonly [key: string]: FrontMatterValue }

export type FrontMatterResult =
  | {
      readonly ok: true
      readonly fields: Readonly<Record<string, FrontMatterValue>>
      /** Everything after the closing `---` line (line endings normalised to `\n`). */
      readonly body: string
      /** Lines read as the text written although YAML refuses them (see the module comment), each saying so. */
      readonly notes: ReadonlyArray<string>
      /** The fields whose value ran on over unindented lines, read by front-matter-continued.ts (Claude Code drops such front matter). */
      readonly continued?: ReadonlyArray<string>
    }
  | {
      readonly ok: false
      readonly reason: string
      /** The 1-based line of the file the problem is on, when there is one. */
      readonly line?: number
    }

/** A refusal while the document is walked: the reason and the offset in the front matter. */
class Refusal {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {}
}

const QUOTE_IT = "a plain value may not contain ': ' or continue with 'key:' lines (YAML would read a mapping); put the value in quotes"

/** The library's error, in the words the rest of anvil uses for a SKILL.md. */
const reasonOf = (error: YAMLError, source: string): string => {
  const message = error.message.split("\n")[0]!
  switch (error.code) {
    case "DUPLICATE_KEY": {
      const key = /^[^:\n]*/.exec(source.slice(error.pos[0]))![0].trim()
      return `duplicate key '${key}'`
    }
    case "TAB_AS_INDENT":
      return "tabs are not allowed for indentation (use spaces)"
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY":
      return message.includes("block sequence") ? "unexpected indentation (list items line up under their key)" : QUOTE_IT
    case "MISSING_CHAR":
      if (message.includes('"quote')) return "unterminated double-quoted value"
      if (message.includes("'quote")) return "unterminated single-quoted value"
      return `${message} (expected 'key: value')`
    case "BAD_DQ_ESCAPE":
      return `invalid escape in a double-quoted value (${message})`
    case "BAD_INDENT":
      if (message.includes("Flow sequence")) return "a [list] must be closed on the same line"
      return "a line is indented less than the block it continues (unexpected indentation)"
    case "UNEXPECTED_TOKEN":
      if (message.includes("block-seq-ind")) return "a '- item' list goes on the line below its key"
      if (message.includes("Block scalar header")) return `invalid block scalar header (${message})`
      if (message.includes("at node end")) return "unexpected text after the closing quote"
      return message
    default:
      return message
  }
}

const refuse = (reason: string, node: { readonly range?: readonly [number, number, number] | null | undefined }): Refusal =>
  new Refusal(reason, node.range?.[0] ?? 0)

/** Anchors, aliases and tags are YAML features a SKILL.md has no use for. */
const plainNode = (node: unknown): Refusal | undefined => {
  if (isAlias(node)) return refuse("anchors and aliases are not allowed", node)
  if (isScalar(node) || isMap(node) || isSeq(node)) {
    if (node.anchor) return refuse("anchors and aliases are not allowed", node)
    if (node.tag) return refuse("tags are not allowed", node)
  }
  return undefined
}

/** A string value: its text, or the refusal. */
const stringOf = (node: unknown, what: string): string | Refusal => {
  const bad = plainNode(node)
  if (bad) return bad
  if (node === null || node === undefined) return ""
  if (isScalar(node)) return String(node.value ?? "")
  return refuse(what, node as Node)
}

const valueOf = (node: unknown): FrontMatterValue | Refusal => {
  const bad = plainNode(node)
  if (bad) return bad
  if (isSeq(node)) {
    const items: Array<FrontMatterValue> = []
    for (const item of node.items) {
      if (isScalar(item) && item.source === "" && !node.flow) return refuse("empty list item", item)
      const value = valueOf(item)
      if (value instanceof Refusal) return value
      items.push(value)
    }
    return items
  }
  if (isMap(node)) {
    const out: Record<string, FrontMatterValue> = {}
    for (const pair of node.items) {
      const key = stringOf(pair.key, "keys must be plain strings")
      if (typeof key !== "string") return key
      const value = valueOf(pair.value)
      if (value instanceof Refusal) return value
      out[key] = value
    }
    return out
  }
  return stringOf(node, "unexpected value")
}

const mappingOf = (source: string): Record<string, FrontMatterValue> | Refusal => {
  const doc = parseDocument(source, { schema: "failsafe", uniqueKeys: true, prettyErrors: false })
  const error = doc.errors[0]
  if (error) return new Refusal(reasonOf(error, source), error.pos[0])
  const root = doc.contents
  if (root === null) return {}
  if (!isMap(root) || root.flow) {
    const first = source.split("\n").find((l) => l.trim() !== "" && !l.trimStart().startsWith("#")) ?? ""
    return refuse(`expected 'key: value', got '${first.length > 60 ? `${first.slice(0, 57)}...` : first}'`, root)
  }
  const fields: Record<string, FrontMatterValue> = {}
  for (const pair of root.items) {
    const keyNode = pair.key as Node
    const start = keyNode?.range?.[0] ?? 0
    if (start > 0 && source[start - 1] !== "\n") return refuse("unexpected indentation (a top-level line must start with 'key:')", keyNode)
    const key = stringOf(keyNode, "keys must be plain strings")
    if (typeof key !== "string") return key
    const value = valueOf(pair.value)
    if (value instanceof Refusal) return value
    fields[key] = value
  }
  return fields
}

/**
 * Parses the front matter of `text`. Never throws: a problem is `{ ok: false,
 * reason, line }`.
 */
export const parseFrontMatter = (text: string): FrontMatterResult => {
  const all = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n")
  if (all[0]?.trimEnd() !== "---") {
    return { ok: false, reason: "the file does not start with YAML front matter (a first line '---')", line: 1 }
  }
  const close = all.findIndex((line, j) => j > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."))
  if (close < 0) return { ok: false, reason: "the front matter is not closed by a '---' line" }
  const source = all.slice(1, close).join("\n")
  const body = all.slice(close + 1).join("\n")
  const fields = mappingOf(source)
  if (!(fields instanceof Refusal)) return { ok: true, fields, body, notes: [] }
  const prose = quoteProse(source)
  if (prose.notes.length > 0) {
    const retried = mappingOf(prose.source)
    if (!(retried instanceof Refusal)) return { ok: true, fields: retried, body, notes: prose.notes }
  }
  // Line 1 is the opening '---'.
  return { ok: false, reason: fields.reason, line: 2 + (source.slice(0, fields.offset).match(/\n/g)?.length ?? 0) }
}

/** A top-level `key: value` line whose unquoted value holds `: ` (or ends in `:`) or starts with a character YAML reserves. */
const PROSE_LINE = /^([A-Za-z_][\w-]*):[ \t]+(?![\s"'[{|>&!#-])((?:.*:(?:[ \t].*)?)|[*@`%].*)$/

/** The front matter with each prose line's value in double quotes (JSON's escapes are YAML's), and a note per line. */
const quoteProse = (source: string): { source: string; notes: Array<string> } => {
  const notes: Array<string> = []
  const lines = source.split("\n").map((line, i) => {
    const m = PROSE_LINE.exec(line.trimEnd())
    // A line that YAML reads alone is left as it is: only its neighbours made the document fail.
    if (!m || !(mappingOf(line) instanceof Refusal)) return line
    notes.push(`line ${i + 2}: the value of '${m[1]}' is not valid YAML as written (${/^[*@`%]/.test(m[2]!) ? `a first '${m[2]![0]}'` : "a ':' that YAML reads as a key"}); it was read as the text written (quote it for other YAML readers)`)
    return `${m[1]}: ${JSON.stringify(m[2]!)}`
  })
  return { source: lines.join("\n"), notes }
}
