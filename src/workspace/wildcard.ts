import { keepBelowTopTier } from "./jit-tier.ts"

/**
 * Wildcard matching in linear time. Globs, ignore rules and permission
 * patterns all come from places anvil does not control (a cloned repository's
 * .gitignore, a model's glob call), and a backtracking regular expression for
 * `*a*a*a*a*a*a*a*a*b` takes exponential time on a long name. Here a pattern
 * is a list of tokens run as an NFA over the text, one code point at a time,
 * with every live position kept at once: time is at most text length ×
 * pattern length, whatever the pattern.
 */

/** A test on one character (a code point, as a string). */
export type CharTest = (ch: string) => boolean

/** One step of a pattern; `source` is the same step as RegExp source (used when that cannot backtrack badly). */
export type WildcardToken =
  /** Exactly one character that passes the test (a literal, `?`, a bracket class). */
  | { readonly kind: "char"; readonly test: CharTest; readonly source: string }
  /** Zero or more characters, each passing the test (`*`, or `**` across folders). */
  | { readonly kind: "run"; readonly test: CharTest; readonly source: string }
  /** Nothing, or any text ending in `/` (`**` followed by `/`: zero or more folders). */
  | { readonly kind: "dirs"; readonly source: string }

/** What a compiled pattern offers (the part of RegExp the callers used). */
export interface TextMatcher {
  /** Whether the whole text matches. */
  readonly test: (text: string) => boolean
}

export const anyChar: CharTest = () => true
export const notSlash: CharTest = (ch) => ch !== "/"

const escape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/** A literal character (case-insensitive when `nocase`). */
export const literal = (c: string, nocase = false): WildcardToken => {
  if (!nocase) return { kind: "char", test: (ch) => ch === c, source: escape(c) }
  const lower = c.toLowerCase()
  return { kind: "char", test: (ch) => ch === c || ch.toLowerCase() === lower, source: escape(c) }
}
/** One character of a class, given as a test and the equivalent RegExp class source. */
export const oneOf = (test: CharTest, source: string): WildcardToken => ({ kind: "char", test, source })
export const ANY_ONE: WildcardToken = { kind: "char", test: anyChar, source: "[\\s\\S]" }
export const ONE_IN_NAME: WildcardToken = { kind: "char", test: notSlash, source: "[^/]" }
export const ANY_RUN: WildcardToken = { kind: "run", test: anyChar, source: "[\\s\\S]*" }
export const RUN_IN_NAME: WildcardToken = { kind: "run", test: notSlash, source: "[^/]*" }
export const DIRS: WildcardToken = { kind: "dirs", source: "(?:[\\s\\S]*/)?" }

/**
 * A compiled wildcard pattern. With at most one run (`*`, `**`) it is the
 * equivalent RegExp — one variable part cannot backtrack more than text ×
 * pattern — and the engine's native speed is kept for the common patterns
 * (`*.ts`, `.env*`, `node_modules`). With more, it runs as the NFA.
 */
export class Wildcard implements TextMatcher {
  private readonly tokens: ReadonlyArray<WildcardToken>
  private readonly re: RegExp | undefined
  private active: Uint8Array
  private next: Uint8Array

  constructor(tokens: ReadonlyArray<WildcardToken>, nocase = false) {
    keepTestBelowTopTier()
    // Adjacent runs of the same test mean the same as one (and keep the NFA small).
    const merged: Array<WildcardToken> = []
    for (const t of tokens) {
      const last = merged[merged.length - 1]
      if (t.kind === "run" && last?.kind === "run" && last.test === t.test) continue
      merged.push(t)
    }
    this.tokens = merged
    const variable = merged.filter((t) => t.kind !== "char").length
    this.re = variable <= 1 ? new RegExp(`^(?:${merged.map((t) => t.source).join("")})$`, nocase ? "isu" : "su") : undefined
    this.active = new Uint8Array(2 * merged.length + 1)
    this.next = new Uint8Array(2 * merged.length + 1)
  }

  test(text: string): boolean {
    if (this.re) return this.re.test(text)
    return this.run(text)?.[this.tokens.length] === 1
  }

  /**
   * Whether some text that starts with `prefix` matches: a deny-everything rule's exceptions (`src/**`) may let
   * something in folder `lib/` through only if `lib/` is such a prefix. Every token can match something, so any
   * position still alive after the prefix leads to a match.
   */
  startsMatch(prefix: string): boolean {
    const left = this.run(prefix)
    return left !== undefined && left.includes(1)
  }

  /** The NFA's positions after `text` (see test), or undefined when none is left. */
  private run(text: string): Uint8Array | undefined {
    const tokens = this.tokens
    const n = tokens.length
    // Positions 0..n (before token i; n accepts) and n+1+i (inside the `dirs` token i).
    let active = this.active
    let next = this.next
    active.fill(0)
    active[0] = 1
    this.close(active)
    for (let k = 0; k < text.length; k++) {
      // One code point at a time (a surrogate pair is one character).
      const code = text.charCodeAt(k)
      const pair = code >= 0xd800 && code <= 0xdbff && k + 1 < text.length
      const ch = pair ? text.slice(k, k + 2) : text[k]!
      if (pair) k++
      next.fill(0)
      let any = false
      for (let i = 0; i < n; i++) {
        const inner = active[n + 1 + i] === 1
        if (active[i] !== 1 && !inner) continue
        const t = tokens[i]!
        if (t.kind === "char") {
          if (active[i] === 1 && t.test(ch)) {
            next[i + 1] = 1
            any = true
          }
        } else if (t.kind === "run") {
          if (t.test(ch)) {
            next[i] = 1
            any = true
          }
        } else {
          next[n + 1 + i] = 1
          any = true
          if (ch === "/") next[i + 1] = 1
        }
      }
      if (!any) return undefined
      this.close(next)
      const swap = active
      active = next
      next = swap
    }
    return active
  }

  /** Adds what is reachable without consuming: past runs and `dirs` (both may match nothing). */
  private close(set: Uint8Array): void {
    const tokens = this.tokens
    for (let i = 0; i < tokens.length; i++) {
      if (set[i] === 1 && tokens[i]!.kind !== "char") set[i + 1] = 1
    }
  }
}

/**
 * Compiles the simple wildcard language of permission rules and command
 * patterns: `*` any run, `?` one character, where `sep` says whether they may
 * cross `/` (in paths `**` does, and `**` + `/` is zero or more folders);
 * everything else is literal.
 */
export const simpleWildcard = (pattern: string, options: { readonly paths: boolean; readonly nocase?: boolean }): Wildcard => {
  const tokens: Array<WildcardToken> = []
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "*") {
      if (options.paths && chars[i + 1] === "*") {
        i++
        if (chars[i + 1] === "/") {
          i++
          tokens.push(DIRS)
        } else tokens.push(ANY_RUN)
      } else tokens.push(options.paths ? RUN_IN_NAME : ANY_RUN)
    } else if (c === "?") tokens.push(options.paths ? ONE_IN_NAME : ANY_ONE)
    else tokens.push(literal(c, options.nocase))
  }
  return new Wildcard(tokens, options.nocase)
}

// Marked when the first pattern is made, not when this module loads: a call that compiles no
// pattern (most tool calls without permission rules) does not load bun:jsc for it.
let tiered = false
const keepTestBelowTopTier = () => {
  if (tiered) return
  tiered = true
  keepBelowTopTier(Wildcard.prototype.test)
}
