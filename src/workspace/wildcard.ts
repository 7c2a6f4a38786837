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

/** One step of a pattern. */
export type WildcardToken =
  /** Exactly one character that passes the test (a literal, `?`, a bracket class). */
  | { readonly kind: "char"; readonly test: CharTest }
  /** Zero or more characters, each passing the test (`*`, or `**` across folders). */
  | { readonly kind: "run"; readonly test: CharTest }
  /** Nothing, or any text ending in `/` (`**` followed by `/`: zero or more folders). */
  | { readonly kind: "dirs" }

/** What a compiled pattern offers (the part of RegExp the callers used). */
export interface TextMatcher {
  /** Whether the whole text matches. */
  readonly test: (text: string) => boolean
}

export const anyChar: CharTest = () => true
export const notSlash: CharTest = (ch) => ch !== "/"
export const literalChar = (c: string, nocase = false): CharTest => {
  if (!nocase) return (ch) => ch === c
  const lower = c.toLowerCase()
  const upper = c.toUpperCase()
  return (ch) => ch === c || ch === lower || ch === upper || ch.toLowerCase() === lower
}

/** A compiled wildcard pattern. */
export class Wildcard implements TextMatcher {
  private readonly tokens: ReadonlyArray<WildcardToken>
  /** A literal pattern (no runs): compared by length first. */
  private readonly fixed: boolean

  constructor(tokens: ReadonlyArray<WildcardToken>) {
    // Adjacent runs of the same test mean the same as one (and keep the NFA small).
    const merged: Array<WildcardToken> = []
    for (const t of tokens) {
      const last = merged[merged.length - 1]
      if (t.kind === "run" && last?.kind === "run" && last.test === t.test) continue
      merged.push(t)
    }
    this.tokens = merged
    this.fixed = merged.every((t) => t.kind === "char")
  }

  test(text: string): boolean {
    const tokens = this.tokens
    const n = tokens.length
    if (this.fixed && text.length < n) return false
    // Positions 0..n (before token i; n accepts) and n+1+i (inside the `dirs` token i).
    let active = new Uint8Array(2 * n + 1)
    let next = new Uint8Array(2 * n + 1)
    active[0] = 1
    this.close(active)
    for (const ch of text) {
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
      if (!any) return false
      this.close(next)
      const swap = active
      active = next
      next = swap
    }
    return active[n] === 1
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
  const one = options.paths ? notSlash : anyChar
  const tokens: Array<WildcardToken> = []
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "*") {
      if (options.paths && chars[i + 1] === "*") {
        i++
        if (chars[i + 1] === "/") {
          i++
          tokens.push({ kind: "dirs" })
        } else tokens.push({ kind: "run", test: anyChar })
      } else tokens.push({ kind: "run", test: one })
    } else if (c === "?") tokens.push({ kind: "char", test: one })
    else tokens.push({ kind: "char", test: literalChar(c, options.nocase) })
  }
  return new Wildcard(tokens)
}
