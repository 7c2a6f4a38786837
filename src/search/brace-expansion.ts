import { Data } from "effect"
/**
 * Bash brace expansion, done before any globbing as bash does it:
 * `{a,b}` alternatives (nested, left to right), `{1..10}`, `{01..10..2}` and
 * `{a..e}` sequences; `\{`, `\,`, `\}` stay literal; a brace with no top-level
 * comma and no valid sequence (`{}`, `{a}`, `{1..x}`) is literal text.
 */

export class BraceExpansionError extends Data.TaggedError("BraceExpansionError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

/** Expands `pattern` into the patterns bash would glob, in bash's order. */
export const expandBraces = (pattern: string, limit = 1024): ReadonlyArray<string> => {
  const out = expand(pattern, limit)
  return out
}

const expand = (text: string, limit: number): Array<string> => {
  const found = findBrace(text)
  if (found === undefined) return [text]
  const { open, close, alternatives } = found
  const prefix = text.slice(0, open)
  const suffixes = expand(text.slice(close + 1), limit)
  const results: Array<string> = []
  for (const alternative of alternatives) {
    for (const middle of expand(alternative, limit)) {
      for (const suffix of suffixes) {
        results.push(prefix + middle + suffix)
        if (results.length > limit) {
          throw new BraceExpansionError(`the brace expansion produces more than ${limit} patterns`)
        }
      }
    }
  }
  return results
}

interface Brace {
  readonly open: number
  readonly close: number
  readonly alternatives: ReadonlyArray<string>
}

/** The first `{` (from the left) that opens a valid brace expression. */
const findBrace = (text: string): Brace | undefined => {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c !== "{") continue
    const close = matchingClose(text, i)
    if (close === undefined) continue
    const body = text.slice(i + 1, close)
    const parts = topLevelCommas(body)
    if (parts.length > 1) return { open: i, close, alternatives: parts }
    const sequence = expandSequence(body)
    if (sequence !== undefined) return { open: i, close, alternatives: sequence }
  }
  return undefined
}

const matchingClose = (text: string, open: number): number | undefined => {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    const c = text[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c === "{") depth++
    else if (c === "}") {
      depth--
      if (depth === 0) return i
    }
  }
  return undefined
}

const topLevelCommas = (body: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c === "{") depth++
    else if (c === "}") depth--
    else if (c === "," && depth === 0) {
      parts.push(body.slice(start, i))
      start = i + 1
    }
  }
  parts.push(body.slice(start))
  return parts
}

const INT = /^[-+]?\d+$/

/** `1..5`, `05..1..2`, `a..e`: the items, or undefined when `body` is no sequence. */
const expandSequence = (body: string): Array<string> | undefined => {
  const parts = body.split("..")
  if (parts.length !== 2 && parts.length !== 3) return undefined
  const [from, to, step] = parts as [string, string, string | undefined]
  if (step !== undefined && !INT.test(step)) return undefined
  const increment = Math.abs(step === undefined ? 1 : Number(step)) || 1
  if (INT.test(from) && INT.test(to)) {
    const a = Number(from)
    const b = Number(to)
    const padded = /^[-+]?0\d/.test(from) || /^[-+]?0\d/.test(to)
    const width = padded ? Math.max(from.replace(/^\+/, "").length, to.replace(/^\+/, "").length) : 0
    const items: Array<string> = []
    const dir = a <= b ? 1 : -1
    for (let n = a; dir > 0 ? n <= b : n >= b; n += dir * increment) {
      items.push(pad(n, width))
      if (items.length > 100_000) throw new BraceExpansionError("the brace sequence is too long")
    }
    return items
  }
  if (from.length === 1 && to.length === 1 && isLetter(from) && isLetter(to)) {
    const a = from.charCodeAt(0)
    const b = to.charCodeAt(0)
    const dir = a <= b ? 1 : -1
    const items: Array<string> = []
    for (let n = a; dir > 0 ? n <= b : n >= b; n += dir * increment) items.push(String.fromCharCode(n))
    return items
  }
  return undefined
}

const isLetter = (c: string) => /^[A-Za-z]$/.test(c)

const pad = (n: number, width: number): string => {
  const digits = String(Math.abs(n)).padStart(n < 0 ? width - 1 : width, "0")
  return n < 0 ? `-${digits}` : digits
}
