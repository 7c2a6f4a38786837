import { readFileSync } from "node:fs"
import { findNodeAtLocation, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser"
import { positionAt } from "../config/jsonc.ts"

/**
 * One JSON file of a Claude Code plugin (hooks.json, .mcp.json), read so
 * that a broken one is a finding about that file, not a throw that takes the
 * whole plugin down: its problem names the file with the line and column, as
 * an editor shows them, and a wrong field can be placed the same way.
 */

export type JsonPath = ReadonlyArray<string | number>

export type JsonPart =
  | { readonly json: unknown; readonly at: (path: JsonPath) => string }
  | { readonly problem: string }

/** `hooks.PreToolUse[0].hooks[1]`: a place in the file as its reader would look for it. */
export const pathText = (path: JsonPath): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("")

/** Claude Code reads these files as plain JSON: no comments, no trailing commas. */
const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const

export const readJsonPart = (file: string): JsonPart => {
  let text: string
  try {
    // A byte-order mark is no part of the JSON (Claude Code loads such files too).
    text = readFileSync(file, "utf8").replace(/^\uFEFF/, "")
  } catch (e) {
    return { problem: `${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    // JSON.parse says what is wrong but not where: the tolerant parser finds the place.
    const errors: Array<ParseError> = []
    parseTree(text, errors, STRICT)
    const first = errors[0]
    const why = (e as Error).message.replace(/^JSON Parse error: /, "")
    if (first === undefined) return { problem: `${file}: not valid JSON (${why})` }
    const { line, column } = positionAt(text, first.offset)
    return { problem: `${file}:${line}:${column}: not valid JSON (${why}; ${printParseErrorCode(first.error)})` }
  }
  // The syntax tree is built only when a field has to be placed (a wrong one, rarely).
  let tree: ReturnType<typeof parseTree> | null = null
  const at = (path: JsonPath): string => {
    tree ??= parseTree(text, [], STRICT)
    const node = tree ? findNodeAtLocation(tree, [...path]) : undefined
    if (node === undefined) return `${file}: ${pathText(path)}`
    const { line, column } = positionAt(text, node.offset)
    return `${file}:${line}:${column}: ${pathText(path)}`
  }
  return { json, at }
}
