import { ANY_ONE, ANY_RUN, DIRS, literal, ONE_IN_NAME, oneOf, RUN_IN_NAME, Wildcard, type WildcardToken } from "./wildcard.ts"
import { keepBelowTopTier } from "./jit-tier.ts"

/**
 * One ignore file's patterns (.gitignore syntax, also .ignore and .rgignore),
 * matched in linear time: a repository's ignore file is untrusted input, and
 * the regular expressions an ignore library builds backtrack badly on
 * patterns such as `a/**​/**​/**​/…/b`. Semantics follow git (and the `ignore`
 * package, which the tests compare against on seeded random cases):
 *
 * - blank lines and `#` comments are skipped; `\#` and `\!` start a literal;
 *   trailing spaces are dropped unless escaped;
 * - `!` re-includes; the last matching pattern decides;
 * - a trailing `/` matches directories only (a directory's path is given
 *   with a trailing `/`);
 * - a pattern with a `/` at the start or in the middle is anchored to the
 *   file's folder; otherwise it matches a name at any depth;
 * - `*` and `?` stay within a folder; `**​/` at the start or `/**​/` in the
 *   middle is zero or more folders; a trailing `/**` is everything inside;
 *   other `**` are plain `*`; `[...]` classes; `\x` escapes.
 *
 * A path is judged by itself (the walk handles "inside an ignored folder").
 */

/** How a path fares against one file's patterns. */
export type IgnoreVerdict = "ignored" | "whitelisted" | undefined

interface Rule {
  readonly negative: boolean
  readonly dirOnly: boolean
  /** Unanchored: no `/` in the pattern, so only the last name of a path can match it. */
  readonly basename: boolean
  readonly matcher: Wildcard
}

/** Drops unescaped trailing spaces (git keeps a space escaped by a backslash). */
const trimTrailing = (line: string): string => {
  let end = line.length
  while (end > 0 && line[end - 1] === " ") {
    let slashes = 0
    while (end - 2 - slashes >= 0 && line[end - 2 - slashes] === "\\") slashes++
    if (slashes % 2 === 1) break
    end--
  }
  return line.slice(0, end)
}

const hex = (cp: number) => `\\u{${cp.toString(16)}}`

/** A bracket class at `start` as a one-character test; undefined when not closed. */
const bracket = (chars: ReadonlyArray<string>, start: number): { token: WildcardToken; end: number } | undefined => {
  let i = start + 1
  let negate = false
  if (chars[i] === "!" || chars[i] === "^") {
    negate = true
    i++
  }
  const ranges: Array<[number, number]> = []
  let first = true
  for (; i < chars.length; i++) {
    let c = chars[i]!
    if (c === "]" && !first) {
      const test = (ch: string) => {
        if (ch === "/") return false
        const cp = ch.codePointAt(0)!
        const inside = ranges.some(([lo, hi]) => cp >= lo && cp <= hi)
        return negate ? !inside : inside
      }
      const body = ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : hi < lo ? "" : `${hex(lo)}-${hex(hi)}`)).join("")
      const source = negate ? `[^/${body}]` : body === "" ? "(?!)" : `(?!/)[${body}]`
      return { token: oneOf(test, source), end: i }
    }
    first = false
    if (c === "\\" && i + 1 < chars.length) c = chars[++i]!
    const lo = c.codePointAt(0)!
    if (chars[i + 1] === "-" && chars[i + 2] !== undefined && chars[i + 2] !== "]") {
      let hiChar = chars[i + 2]!
      let skip = 2
      if (hiChar === "\\" && chars[i + 3] !== undefined) {
        hiChar = chars[i + 3]!
        skip = 3
      }
      ranges.push([lo, hiChar.codePointAt(0)!])
      i += skip
      continue
    }
    ranges.push([lo, lo])
  }
  return undefined
}

/** Compiles one pattern (without `!` and trailing `/`); undefined when it can match nothing. */
const compilePattern = (body: string): Wildcard | undefined => {
  let text = body.startsWith("/") ? body.slice(1) : body
  const tokens: Array<WildcardToken> = []
  // An unanchored pattern is tested against the last name only (see IgnorePatterns.test).
  if (text.startsWith("**/")) {
    tokens.push(DIRS)
    text = text.slice(3)
  }
  const chars = [...text]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "\\") {
      tokens.push(literal(chars[i + 1] ?? "\\"))
      if (i + 1 < chars.length) i++
      continue
    }
    if (c === "*") {
      if (chars[i + 1] === "*") {
        let j = i
        while (chars[j] === "*") j++
        const before = i === 0 || chars[i - 1] === "/"
        const after = chars[j]
        if (before && after === "/") {
          // `/**/`: zero or more folders (the `/` before it is already a token; the one after is part of `dirs`).
          tokens.push(DIRS)
          i = j
          continue
        }
        if (before && after === undefined) {
          // `**` alone: everything; a trailing `/**`: everything inside the folder.
          if (i > 0) tokens.push(ANY_ONE)
          tokens.push(ANY_RUN)
          i = j - 1
          continue
        }
        i = j - 1
      }
      tokens.push(RUN_IN_NAME)
      continue
    }
    if (c === "?") {
      tokens.push(ONE_IN_NAME)
      continue
    }
    if (c === "[") {
      const cls = bracket(chars, i)
      // An unclosed class makes the whole pattern fail, as in git's wildmatch.
      if (cls === undefined) return undefined
      tokens.push(cls.token)
      i = cls.end
      continue
    }
    tokens.push(literal(c))
  }
  return new Wildcard(tokens)
}

/** The patterns of one ignore file. */
export class IgnorePatterns {
  private constructor(private readonly rules: ReadonlyArray<Rule>) {}

  /** Parses an ignore file's text. */
  static parse(text: string): IgnorePatterns {
    const rules: Array<Rule> = []
    for (const raw of text.split("\n")) {
      let line = trimTrailing(raw.replace(/\r$/, ""))
      if (line === "" || line.startsWith("#")) continue
      let negative = false
      if (line.startsWith("!")) {
        negative = true
        line = line.slice(1)
      } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1)
      const dirOnly = line.endsWith("/") && !line.endsWith("\\/")
      const body = dirOnly ? line.slice(0, -1) : line
      if (body === "") continue
      const matcher = compilePattern(body)
      const basename = !(body.slice(0, -1).includes("/") || body.startsWith("/"))
      if (matcher) rules.push({ negative, dirOnly, basename, matcher })
    }
    return new IgnorePatterns(rules)
  }

  /** How many patterns the file holds. */
  get size(): number {
    return this.rules.length
  }

  /** Judges `path` (relative to the file's folder; a directory ends with `/`): the last matching pattern decides. */
  test(path: string): IgnoreVerdict {
    const isDir = path.endsWith("/")
    return this.judge(isDir ? path.slice(0, -1) : path, isDir)
  }

  /** {@link test} for `own` (no trailing `/`), a directory when `isDir`: no string is built for a bare name. */
  judge(own: string, isDir: boolean): IgnoreVerdict {
    const cut = own.lastIndexOf("/")
    const name = cut < 0 ? own : own.slice(cut + 1)
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!
      if (rule.dirOnly && !isDir) continue
      if (rule.matcher.test(rule.basename ? name : own)) return rule.negative ? "whitelisted" : "ignored"
    }
    return undefined
  }
}

keepBelowTopTier(IgnorePatterns.prototype.judge)
