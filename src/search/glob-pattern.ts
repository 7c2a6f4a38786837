import { ANY_ONE, ANY_RUN, literal as literalToken, oneOf, Wildcard, type TextMatcher, type WildcardToken } from "../workspace/wildcard.ts"
import { Data } from "effect"
import { NameFilter, type NameShape } from "../workspace/name-filter.ts"
import { BraceExpansionError, expandBraces } from "./brace-expansion.ts"
import { keepBelowTopTier } from "../workspace/jit-tier.ts"

/**
 * Glob patterns as bash expands them with `shopt -s globstar` (and `dotglob`
 * when hidden entries are wanted):
 *
 * - braces first (`{a,b}`, `{1..3}`), then each pattern is split on `/`;
 * - `*` (any run), `?` (one character), `[...]` classes with ranges, `!`/`^`
 *   negation and POSIX classes (`[[:alpha:]]`), `\x` escapes; an unclosed
 *   `[` is a literal;
 * - `**` alone as a segment matches zero or more directories (so `**​/x`
 *   also matches `x` at depth zero); as the last segment it matches every
 *   file below; anywhere else it is a plain `*`;
 * - a name starting with `.` is matched only by a segment that starts with a
 *   literal `.`, unless dotglob; `**` does not enter hidden directories
 *   unless dotglob;
 * - a trailing `/` asks for directories only.
 *
 * Matching runs segment by segment as a small NFA, so a walker can prune a
 * directory as soon as no pattern can match below it; within a segment the
 * wildcards run as a linear-time NFA too (no backtracking RegExp).
 */

export class GlobPatternError extends Data.TaggedError("GlobPatternError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

type Segment =
  | { readonly kind: "globstar" }
  | { readonly kind: "literal"; readonly text: string }
  | {
      readonly kind: "wild"
      readonly re: TextMatcher
      readonly explicitDot: boolean
      /** The literal text every matching name starts / ends with (empty when none, or case-insensitive). */
      readonly prefix: string
      readonly suffix: string
      /** Only `*`: any name (a hidden one only with dotglob). */
      readonly star: boolean
    }

interface CompiledPattern {
  readonly segments: ReadonlyArray<Segment>
  readonly dirsOnly: boolean
}

/** Which files of a directory can match (see {@link GlobMatcher.filesIn}). */
export type FilesRule = "none" | "visible" | "any" | "each"

/** A set of NFA positions: pattern index × segment index, as sorted numbers. */
export type GlobState = ReadonlyArray<number>

export interface StepResult {
  readonly state: GlobState
  /** True when a literal segment of the pattern named this entry (it is then searched even if hidden or ignored). */
  readonly explicit: boolean
}

export interface GlobOptions {
  /** bash's dotglob: wildcards and `**` also match names starting with `.`. */
  readonly dot: boolean
  /** A pattern without `/` matches the basename at any depth (`*.ts` = `**​/*.ts`), as include filters do. */
  readonly matchBase?: boolean
  /** Case-insensitive matching (bash's nocaseglob). Default false. */
  readonly nocase?: boolean
}

const STRIDE = 1 << 12

const MATCH: StepResult = { state: [], explicit: false }
const MATCH_EXPLICIT: StepResult = { state: [], explicit: true }

/** A compiled glob (possibly several after brace expansion). */
export class GlobMatcher {
  readonly patterns: ReadonlyArray<CompiledPattern>
  readonly dot: boolean
  /** The brace-expanded patterns, as written. */
  readonly expanded: ReadonlyArray<string>
  /** Whether some pattern asks for directories (ends with `/`). */
  readonly wantsDirs: boolean

  private constructor(expanded: ReadonlyArray<string>, patterns: ReadonlyArray<CompiledPattern>, dot: boolean) {
    this.expanded = expanded
    this.patterns = patterns
    this.dot = dot
    this.wantsDirs = patterns.some((p) => p.dirsOnly)
  }

  /** Compiles `pattern`; throws GlobPatternError for absolute or escaping patterns. */
  static compile(pattern: string, options: GlobOptions): GlobMatcher {
    if (pattern.trim() === "") throw new GlobPatternError("the pattern is empty")
    if (pattern.includes("\0")) throw new GlobPatternError("the pattern contains a NUL byte")
    // Patterns and names are compared in NFC, so "é" typed as one code point matches a name stored decomposed (as
    // macOS writes it) and the reverse; ASCII is the same in every form.
    pattern = pattern.normalize("NFC")
    let expanded: ReadonlyArray<string>
    try {
      expanded = expandBraces(pattern)
    } catch (e) {
      if (e instanceof BraceExpansionError) throw new GlobPatternError(e.message)
      throw e
    }
    const patterns: Array<CompiledPattern> = []
    const normalized: Array<string> = []
    for (const raw of expanded) {
      if (raw.startsWith("/") || /^[A-Za-z]:[\\/]/.test(raw) || raw.startsWith("\\\\")) {
        throw new GlobPatternError(`absolute patterns are not allowed ('${raw}'); give a pattern relative to 'path'`)
      }
      if (raw.startsWith("~")) throw new GlobPatternError(`home-relative patterns are not allowed ('${raw}')`)
      let text = raw
      while (text.startsWith("./")) text = text.slice(2)
      const dirsOnly = text.endsWith("/") && text.length > 1
      const parts = text.split("/").filter((s, i, all) => s !== "" || i === all.length - 1)
      if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop()
      if (parts.some((p) => p === "..")) {
        throw new GlobPatternError(`'..' is not allowed in a pattern ('${raw}'); change 'path' instead`)
      }
      const cleaned = parts.filter((p) => p !== ".")
      if (cleaned.length === 0) throw new GlobPatternError(`the pattern '${raw}' names no files`)
      const withBase = options.matchBase && cleaned.length === 1 && cleaned[0] !== "**" ? ["**", ...cleaned] : cleaned
      // Consecutive `**` segments mean the same as one.
      const collapsed = withBase.filter((p, i) => !(p === "**" && withBase[i - 1] === "**"))
      if (collapsed.length >= STRIDE) throw new GlobPatternError("the pattern has too many segments")
      patterns.push({ segments: collapsed.map((s) => compileSegment(s, options.nocase ?? false)), dirsOnly })
      normalized.push(collapsed.join("/") + (dirsOnly ? "/" : ""))
    }
    return new GlobMatcher(normalized, patterns, options.dot)
  }

  /** The state at the search root. */
  start(): GlobState {
    const positions: Array<number> = []
    for (let p = 0; p < this.patterns.length; p++) this.close(p, 0, positions)
    return normalize(positions)
  }

  /** Consumes a directory name; an empty state means nothing can match below it. */
  enter(state: GlobState, name: string): StepResult {
    const positions: Array<number> = []
    let explicit = false
    for (const code of state) {
      const p = Math.floor(code / STRIDE)
      const i = code % STRIDE
      const segments = this.patterns[p]!.segments
      if (i >= segments.length) continue
      const r = this.consume(segments[i]!, name)
      if (r === "stay") this.close(p, i, positions)
      else if (r === "advance") {
        if (segments[i]!.kind === "literal") explicit = true
        this.close(p, i + 1, positions)
      }
    }
    // A state whose every position is at the end of its pattern can match the directory itself, nothing below.
    return { state: normalize(positions), explicit }
  }

  /** Whether anything below a directory in `state` could still match. */
  canDescend(state: GlobState): boolean {
    for (const code of state) {
      const p = Math.floor(code / STRIDE)
      if (code % STRIDE < this.patterns[p]!.segments.length) return true
    }
    return false
  }

  /** Whether an entry `name` (file, or directory when `isDir`) in a directory in `state` matches. */
  matches(state: GlobState, name: string, isDir: boolean): StepResult | undefined {
    let explicit = false
    let matched = false
    for (const code of state) {
      const p = Math.floor(code / STRIDE)
      const i = code % STRIDE
      const pattern = this.patterns[p]!
      if (pattern.dirsOnly !== isDir) continue
      const segments = pattern.segments
      if (i >= segments.length) continue
      const segment = segments[i]!
      const r = this.consume(segment, name)
      if (r === "no") continue
      const next = r === "stay" ? i : i + 1
      if (this.reachesEnd(p, next)) {
        matched = true
        if (segment.kind === "literal") explicit = true
      }
    }
    return matched ? (explicit ? MATCH_EXPLICIT : MATCH) : undefined
  }

  /**
   * What the name of every file (non-folder entry) this matcher can accept
   * looks like, as literal prefixes and suffixes: a walk checks a name's bytes
   * against it before making a string of the name. Undefined when any name
   * could match (a pattern ending in `**`, a last segment such as `*` or `?.c`).
   */
  fileNameFilter(): NameFilter | undefined {
    const shapes: Array<NameShape> = []
    for (const pattern of this.patterns) {
      // A folders-only pattern accepts no file.
      if (pattern.dirsOnly) continue
      const last = pattern.segments[pattern.segments.length - 1]!
      if (last.kind === "globstar") return undefined
      const shape = asciiShape(last.kind === "literal" ? { prefix: last.text, suffix: "", exact: true } : { prefix: last.prefix, suffix: last.suffix, exact: false })
      if (shape.prefix === "" && shape.suffix === "") return undefined
      shapes.push(shape)
    }
    return new NameFilter(shapes)
  }

  /**
   * Which files of a directory in `state` match, decided once for the
   * directory: `"none"`, `"visible"` (every name not starting with "."),
   * `"any"`, or `"each"` (ask {@link matches} name by name). A match found
   * without asking is never explicit (only a literal segment is).
   */
  filesIn(state: GlobState): FilesRule {
    let every = false
    for (const code of state) {
      const p = Math.floor(code / STRIDE)
      const i = code % STRIDE
      const pattern = this.patterns[p]!
      if (pattern.dirsOnly) continue
      const segments = pattern.segments
      if (i >= segments.length) continue
      const segment = segments[i]!
      if (segment.kind === "globstar" ? this.reachesEnd(p, i) : segment.kind === "wild" && segment.star && this.reachesEnd(p, i + 1)) every = true
      else if (this.reachesEnd(p, i + 1)) return "each"
    }
    return every ? (this.dot ? "any" : "visible") : "none"
  }

  private reachesEnd(p: number, i: number): boolean {
    const segments = this.patterns[p]!.segments
    for (let k = i; k < segments.length; k++) if (segments[k]!.kind !== "globstar") return false
    return true
  }

  private consume(segment: Segment, name: string): "no" | "stay" | "advance" {
    switch (segment.kind) {
      case "globstar":
        return !this.dot && name.startsWith(".") ? "no" : "stay"
      case "literal":
        return segment.text === name || (!isAscii(name) && segment.text === name.normalize("NFC")) ? "advance" : "no"
      case "wild":
        if (name.startsWith(".") && !segment.explicitDot && !this.dot) return "no"
        return segment.re.test(isAscii(name) ? name : name.normalize("NFC")) ? "advance" : "no"
    }
  }

  /** Adds position i of pattern p and every position reachable by letting `**` match nothing. */
  private close(p: number, i: number, out: Array<number>): void {
    const segments = this.patterns[p]!.segments
    let k = i
    out.push(p * STRIDE + k)
    while (k < segments.length && segments[k]!.kind === "globstar") {
      k++
      out.push(p * STRIDE + k)
    }
  }
}

/**
 * A name shape cut to its ASCII ends: the bytes of a name may hold non-ASCII
 * text in another Unicode form (NFD) than the pattern (NFC), or stand for
 * bytes that are not UTF-8 (U+FFFD), which only the match itself sees. ASCII
 * characters are the same in every form, so the ASCII start of the prefix and
 * end of the suffix are still a test every matching name passes.
 */
const asciiShape = (shape: NameShape): NameShape => {
  if (isAscii(shape.prefix) && isAscii(shape.suffix)) return shape
  let head = 0
  while (head < shape.prefix.length && shape.prefix.charCodeAt(head) < 0x80) head++
  let tail = shape.suffix.length
  while (tail > 0 && shape.suffix.charCodeAt(tail - 1) < 0x80) tail--
  const prefix = shape.prefix.slice(0, head)
  // An exact name cut at a non-ASCII character keeps its ASCII end as a suffix.
  const whole = shape.exact && head < shape.prefix.length ? shape.prefix : undefined
  let suffix = shape.suffix.slice(tail)
  if (whole !== undefined) {
    let end = whole.length
    while (end > 0 && whole.charCodeAt(end - 1) < 0x80) end--
    suffix = whole.slice(end)
  }
  return { prefix, suffix, exact: false }
}

/** Whether a name is ASCII only (the same in every Unicode normal form; most names are). */
const isAscii = (name: string): boolean => {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) >= 0x80) return false
  return true
}

const normalize = (positions: Array<number>): GlobState => {
  let ordered = true
  for (let i = 1; i < positions.length; i++) {
    if (positions[i - 1]! >= positions[i]!) {
      ordered = false
      break
    }
  }
  if (ordered) return positions
  positions.sort((a, b) => a - b)
  return positions.filter((v, i) => i === 0 || positions[i - 1] !== v)
}

/** A segment's pattern runs as a linear-time NFA (see wildcard.ts); only a bracket class, one character long, is a RegExp. */
const compileSegment = (text: string, nocase: boolean): Segment => {
  if (text === "**") return { kind: "globstar" }
  const tokens: Array<WildcardToken> = []
  let literal = ""
  let isLiteral = true
  let explicitDot = false
  // The literal text before the first wildcard and after the last one.
  let prefix = ""
  let suffix = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const atStart = i === 0
    if (c === "\\") {
      const next = text[i + 1]
      const ch = next === undefined ? "\\" : next
      if (next !== undefined) i++
      if (atStart && ch === ".") explicitDot = true
      tokens.push(literalToken(ch, nocase))
      literal += ch
      suffix += ch
      continue
    }
    if (c === "*") {
      if (isLiteral) prefix = literal
      isLiteral = false
      suffix = ""
      tokens.push(ANY_RUN)
      continue
    }
    if (c === "?") {
      if (isLiteral) prefix = literal
      isLiteral = false
      suffix = ""
      tokens.push(ANY_ONE)
      continue
    }
    if (c === "[") {
      const cls = parseBracket(text, i)
      if (cls !== undefined) {
        if (isLiteral) prefix = literal
        isLiteral = false
        suffix = ""
        const re = new RegExp(`^${cls.source}$`, nocase ? "iu" : "u")
        tokens.push(oneOf((ch) => re.test(ch), cls.source))
        i = cls.end
        continue
      }
    }
    if (atStart && c === ".") explicitDot = true
    // A surrogate pair is one character, as the NFA reads the name by code points.
    const cp = text.codePointAt(i)!
    const ch = String.fromCodePoint(cp)
    if (ch.length === 2) i++
    tokens.push(literalToken(ch, nocase))
    literal += ch
    suffix += ch
  }
  if (isLiteral && !nocase) return { kind: "literal", text: literal }
  const exact = !nocase && !isLiteral
  const star = tokens.every((t) => t === ANY_RUN)
  return { kind: "wild", re: new Wildcard(tokens, nocase), explicitDot, prefix: exact ? prefix : "", suffix: exact ? suffix : "", star }
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "\\p{L}\\p{Nd}",
  alpha: "\\p{L}",
  ascii: "\\x00-\\x7F",
  blank: " \\t",
  cntrl: "\\p{Cc}",
  digit: "0-9",
  graph: "\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}",
  lower: "\\p{Ll}",
  print: "\\p{L}\\p{M}\\p{N}\\p{P}\\p{S} ",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\s",
  upper: "\\p{Lu}",
  word: "\\p{L}\\p{Nd}_",
  xdigit: "0-9A-Fa-f",
}

/** Parses a bracket expression starting at `start` ('['); undefined when it is not closed (then '[' is literal). */
const parseBracket = (text: string, start: number): { source: string; end: number; reversed: boolean } | undefined => {
  let i = start + 1
  let negate = false
  let reversed = false
  if (text[i] === "!" || text[i] === "^") {
    negate = true
    i++
  }
  const items: Array<string> = []
  let first = true
  for (; i < text.length; i++) {
    const c = text[i]!
    if (c === "]" && !first) {
      // `[z-a]` is a class whose only range is reversed: it matches nothing (or, negated, any one character).
      if (items.length === 0 && !reversed) return undefined
      const body = items.join("")
      return { source: negate ? `[^/${body}]` : `[${body}]`, end: i, reversed }
    }
    first = false
    if (c === "[" && (text[i + 1] === ":" || text[i + 1] === "=" || text[i + 1] === ".")) {
      const kind = text[i + 1]!
      const close = text.indexOf(`${kind}]`, i + 2)
      if (close !== -1) {
        const name = text.slice(i + 2, close)
        if (kind === ":") {
          // An unknown class name matches nothing, as in bash; so does one of Object's own (constructor, __proto__).
          const cls = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined
          items.push(cls ?? "")
        } else {
          items.push(classChar(name))
        }
        i = close + 1
        continue
      }
    }
    let ch = c
    if (c === "\\" && i + 1 < text.length) {
      i++
      ch = text[i]!
    }
    const cp = ch.codePointAt(0)!
    if (cp > 0xffff) i++
    const low = String.fromCodePoint(cp)
    if (text[i + 1] === "-" && text[i + 2] !== undefined && text[i + 2] !== "]") {
      let hi = text[i + 2]!
      let skip = 2
      if (hi === "\\" && text[i + 3] !== undefined) {
        hi = text[i + 3]!
        skip = 3
      }
      const hiCp = hi.codePointAt(0)!
      if (hiCp > 0xffff) skip++
      // A reversed range matches nothing in bash.
      if (hiCp >= cp) items.push(`${classChar(low)}-${classChar(String.fromCodePoint(hiCp))}`)
      else reversed = true
      i += skip
      continue
    }
    items.push(classChar(low))
  }
  return undefined
}

/**
 * Why a pattern is malformed for a strict reader such as ripgrep's globs (an
 * unclosed `[` or `{`, a stray `}`, a reversed range), or undefined. The
 * matcher itself reads these leniently, as bash does; a filter the user gave
 * (grep's `include`, list's `ignore`) is refused instead of silently matching nothing.
 */
export const strictPatternProblem = (pattern: string): string | undefined => {
  let depth = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === "\\") {
      if (i === pattern.length - 1) return "a '\\' at the end escapes nothing (write \\\\ for a literal backslash)"
      i++
      continue
    }
    if (c === "[") {
      const cls = parseBracket(pattern, i)
      if (cls === undefined) return "unclosed character class: '[' has no matching ']' (write \\[ for a literal bracket)"
      if (cls.reversed) return `invalid range in '${pattern.slice(i, cls.end + 1)}': its end comes before its start`
      i = cls.end
    } else if (c === "{") depth++
    else if (c === "}") {
      if (depth === 0) return "'}' has no matching '{' (write \\} for a literal brace)"
      depth--
    }
  }
  return depth > 0 ? "unclosed alternate group: '{' has no matching '}' (write \\{ for a literal brace)" : undefined
}

const classChar = (c: string): string => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`

/**
 * Tree order for POSIX paths: component by component, code units within a
 * component, so `a/b` sorts before `a-c` (a directory's contents stay together).
 */
export const comparePaths = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x === 47) return -1
    if (y === 47) return 1
    return x - y
  }
  return a.length - b.length
}

/** Whether a POSIX path relative to the matcher's root matches (its directories walked segment by segment). */
export const matchesPath = (matcher: GlobMatcher, rel: string, isDir = false): boolean => {
  const parts = rel.split("/")
  let state = matcher.start()
  for (let i = 0; i < parts.length - 1; i++) {
    state = matcher.enter(state, parts[i]!).state
    if (state.length === 0) return false
  }
  return matcher.matches(state, parts[parts.length - 1]!, isDir) !== undefined
}

const proto = GlobMatcher.prototype
keepBelowTopTier(isAscii, proto.matches, proto.enter, proto.canDescend, proto.filesIn, proto["consume"], proto["close"], proto["reachesEnd"], normalize)
