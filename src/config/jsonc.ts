import { Data } from "effect"
import { MAX_JSON_DEPTH, mayNestTooDeep } from "./json-depth.ts"
import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser"

/** Where a JSON text position is, counted from 1 as editors show it. */
export interface TextPosition {
  readonly line: number
  readonly column: number
}

/** `offset` (UTF-16 units) as a line and column. */
export const positionAt = (text: string, offset: number): TextPosition => {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: offset - lineStart + 1 }
}

/** JSON with comments that did not parse: the first problem and where it is. */
export class JsoncSyntaxError extends Data.TaggedError("JsoncSyntaxError")<{
  readonly message: string
  readonly position: TextPosition
}> {}

const OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false } as const

/**
 * Parses JSON with comments (`//`, `/* *\/`) and trailing commas, as anvil.json
 * allows, keeping the syntax tree so settings can be traced to their line.
 */
export const parseJsoncTree = (text: string): { readonly tree: Node; readonly value: unknown } | JsoncSyntaxError => {
  const deep = tooDeepAt(text)
  if (deep !== undefined) return tooDeepError(text, deep)
  const errors: Array<ParseError> = []
  const tree = parseTree(text, errors, OPTIONS)
  const first = errors[0]
  if (first !== undefined || tree === undefined) {
    const offset = first?.offset ?? 0
    const position = positionAt(text, offset)
    const what = first ? printParseErrorCode(first.error) : "EmptyContent"
    return new JsoncSyntaxError({ message: `${what} at line ${position.line}, column ${position.column}`, position })
  }
  return { tree, value: nodeValue(tree) }
}

export const tooDeepAt = (text: string): number | undefined => {
  if (!mayNestTooDeep(text)) return undefined
  const scanner = createScanner(text, true)
  let depth = 0
  for (let token = scanner.scan(); token !== 17 /* EOF */; token = scanner.scan()) {
    if (token === 1 /* { */ || token === 3 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return scanner.getTokenOffset()
    } else if (token === 2 /* } */ || token === 4 /* ] */) depth = Math.max(0, depth - 1)
  }
  return undefined
}

/** The syntax error for text nested past MAX_JSON_DEPTH at `offset`. */
export const tooDeepError = (text: string, offset: number): JsoncSyntaxError => {
  const position = positionAt(text, offset)
  return new JsoncSyntaxError({
    message: `nested deeper than ${MAX_JSON_DEPTH} levels at line ${position.line}, column ${position.column}`,
    position,
  })
}

/** The value of a parsed node; later duplicates of a key win, as in JSON.parse. */
const nodeValue = (node: Node): unknown => {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {}
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? []
        // defineProperty: a "__proto__" key is data, not the object's prototype.
        if (key !== undefined && value !== undefined) {
          Object.defineProperty(out, String(key.value), { value: nodeValue(value), enumerable: true, writable: true, configurable: true })
        }
      }
      return out
    }
    case "array":
      return (node.children ?? []).map(nodeValue)
    default:
      return node.value
  }
}

/** Parses JSON with comments and trailing commas; a syntax error throws with its line and column. */
export const parseJsonc = (text: string): unknown => {
  const parsed = parseJsoncTree(text)
  if (parsed instanceof JsoncSyntaxError) throw new SyntaxError(parsed.message)
  return parsed.value
}
