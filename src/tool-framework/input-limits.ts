import { loneSurrogate, loneSurrogateProblem } from "../protocol/lone-surrogate.ts"

/**
 * Bounds on what a call's parameters may be, checked before anything decodes
 * them, and on how much of them is echoed back. A model or a script can send
 * anything: a value nested 10,000 deep, a million keys, a 100 MB string. Such
 * input must end quickly in an INVALID_PARAM envelope that names the limit,
 * and no answer may repeat a large value (an echoed 34 MB `content` cost
 * gigabytes once serialised, spilled and printed). Text must be Unicode: a lone surrogate is refused too.
 */

/** The limits (anvil.json cannot raise them: they guard the process itself). */
export const INPUT_LIMITS = {
  /** Objects and arrays inside one another. */
  maxDepth: 64,
  /** Object keys and array items, counted over the whole value. */
  maxNodes: 100_000,
  /** Characters of one string (a file's whole content passes; 64 Mi characters is far beyond any tool's use). */
  maxStringChars: 64 * 1024 * 1024,
  /** Characters of one object key. */
  maxKeyChars: 1024,
} as const

/** Characters of a value echoed in `params_input` or an error text. */
export const ECHO_CHARS = 2000
/** Keys or items of one object or array echoed in `params_input`. */
const ECHO_ITEMS = 50
/** Depth echoed in `params_input`. */
const ECHO_DEPTH = 6

/** A broken limit: which one, where, and how to say it. */
export interface LimitProblem {
  /** The field path, e.g. `edits.3.old_string`, or "(root)". */
  readonly field: string
  readonly message: string
  /** Not a size limit but text that is not Unicode (a lone surrogate): the value is small enough to echo. */
  readonly echoable?: true
}

const fieldOf = (path: ReadonlyArray<string | number>) => (path.length === 0 ? "(root)" : path.join("."))

/**
 * Walks a parameter value (iteratively: no recursion a deep value could
 * exhaust) and reports the first limit it breaks, or undefined.
 */
export const checkInputLimits = (raw: unknown, limits = INPUT_LIMITS): LimitProblem | undefined => {
  type Item = { readonly value: unknown; readonly depth: number; readonly path: ReadonlyArray<string | number> }
  const stack: Array<Item> = [{ value: raw, depth: 0, path: [] }]
  let nodes = 0
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!
    if (typeof value === "string") {
      if (value.length > limits.maxStringChars) {
        return {
          field: fieldOf(path),
          message: `string of ${value.length} characters is over the limit of ${limits.maxStringChars} (maxStringChars)`,
        }
      }
      // Refused, not changed: written or run, it would become U+FFFD (a file or command other than the one asked for).
      const lone = loneSurrogate(value)
      if (lone !== undefined) return { field: fieldOf(path), message: loneSurrogateProblem(lone), echoable: true }
      continue
    }
    if (typeof value !== "object" || value === null) continue
    if (depth >= limits.maxDepth) {
      return { field: fieldOf(path.slice(0, limits.maxDepth)), message: `nested deeper than the limit of ${limits.maxDepth} levels (maxDepth)` }
    }
    if (Array.isArray(value)) {
      nodes += value.length
      if (nodes > limits.maxNodes) return { field: fieldOf(path), message: `more than ${limits.maxNodes} keys and items in all (maxNodes)` }
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, path: [...path, i] })
      continue
    }
    const keys = Object.keys(value)
    nodes += keys.length
    if (nodes > limits.maxNodes) return { field: fieldOf(path), message: `more than ${limits.maxNodes} keys and items in all (maxNodes)` }
    for (const key of keys) {
      if (key.length > limits.maxKeyChars) {
        return { field: fieldOf(path), message: `a key of ${key.length} characters is over the limit of ${limits.maxKeyChars} (maxKeyChars)` }
      }
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: [...path, key] })
    }
  }
  return undefined
}

/** A string cut to `max` characters, saying how much was left out. */
export const capText = (text: string, max = ECHO_CHARS): string =>
  text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters not shown]`

/**
 * A copy of a parameter value small enough to echo: strings cut to
 * ECHO_CHARS, objects and arrays to their first ECHO_ITEMS entries, depth to
 * ECHO_DEPTH. Small values come back unchanged.
 */
export const echoValue = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return capText(value)
  if (typeof value !== "object" || value === null) return value
  if (depth >= ECHO_DEPTH) return Array.isArray(value) ? "[array nested too deep to show]" : "[object nested too deep to show]"
  if (Array.isArray(value)) {
    const shown = value.slice(0, ECHO_ITEMS).map((v) => echoValue(v, depth + 1))
    if (value.length > ECHO_ITEMS) shown.push(`[${value.length - ECHO_ITEMS} more items not shown]`)
    return shown
  }
  const out: Record<string, unknown> = {}
  let count = 0
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue
    if (count++ >= ECHO_ITEMS) {
      out["…"] = "[more keys not shown]"
      break
    }
    out[capText(key, 200)] = echoValue((value as Record<string, unknown>)[key], depth + 1)
  }
  return out
}
