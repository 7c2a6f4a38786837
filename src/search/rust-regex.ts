import { Data } from "effect"
import { resolveProperty } from "./unicode-property.ts"
/**
 * Rust regex syntax (what ripgrep takes) translated to an equivalent
 * JavaScript RegExp for the in-process search, line by line as ripgrep
 * matches without --multiline.
 *
 * Translated: inline flags `(?i)`, `(?-i:…)`, `(?x)` (whitespace and `#`
 * comments), `(?s)`, `(?U)` (swapped greed), `(?u)` (Unicode classes), `(?R)`;
 * named groups `(?P<n>…)`/`(?<n>…)`; Unicode-aware `\d \w \s \b \B` (JS's
 * are ASCII); `\<`, `\>`, `\b{start}`, `\b{end}`, `\b{start-half}`,
 * `\b{end-half}`; `\A`, `\z`; `\pL`, `\p{Greek}`, `\p{sc=Greek}`,
 * `\P{…}`, `\p{^…}`; `\x7F`, `\x{…}`, `\u{…}`, `\U…`, `\a`, `\e`-less escapes;
 * nested classes, ASCII classes `[[:alpha:]]`, class intersection `&&`,
 * difference `--` and symmetric difference `~~`; repeated assertions and
 * nested repetitions (`^*`, `a**`).
 *
 * Refused, as ripgrep refuses them: look-around, backreferences, unknown
 * escapes, a literal newline (without --multiline); and what has no faithful
 * JavaScript equivalent (byte-oriented `(?-u)` escapes above 0x7F, Unicode
 * properties JavaScript does not know) — rather than guessing.
 */

export class RegexSyntaxError extends Data.TaggedError("RegexSyntaxError")<{
  readonly message: string
  /** True when the pattern is valid Rust syntax the in-process engine cannot honour. */
  readonly unsupported: boolean
}> {
  constructor(message: string, unsupported = false) {
    super({ message, unsupported })
  }
}

export interface TranslatedRegex {
  readonly source: string
  readonly flags: string
  /**
   * The pattern names a carriage return (`\r`, `\x0D` and the like, or a CR itself, alone or in a class), or uses
   * `\z`, whose place ripgrep's CRLF mode moves: either is searched without CRLF mode.
   */
  readonly mentionsCr: boolean
}

/** How the lines are cut, as ripgrep's `--crlf` sets it. */
export interface LineOptions {
  /**
   * CRLF line terminators (ripgrep's `--crlf`): `(?R)` is on from the start, so `$` matches before a `\r` and `^`
   * after one, and every class leaves `\r` out (`\s`, `[^x]`), as ripgrep strips a line terminator from classes;
   * a literal `\r` is an error, as in ripgrep.
   */
  readonly crlf?: boolean
  /**
   * The line (a line's text without its `\n`) is the file's last and has no `\n` after it: a `\r` ending it
   * is then not half of a CRLF, and `$`/`^` in `(?R)` mode match after it (the end of the file).
   */
  readonly unterminated?: boolean
}

interface Flags {
  i: boolean
  m: boolean
  s: boolean
  U: boolean
  u: boolean
  x: boolean
  R: boolean
}

const WORD_U = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]"
const WORD_A = "[A-Za-z0-9_]"
const DIGIT_U = "\\p{Nd}"
const SPACE_U = "\\p{White_Space}"
const SPACE_A = "[\\t\\n\\v\\f\\r ]"

const ASCII_CLASSES: Record<string, ReadonlyArray<[number, number]>> = {
  alnum: [[48, 57], [65, 90], [97, 122]],
  alpha: [[65, 90], [97, 122]],
  ascii: [[0, 127]],
  blank: [[9, 9], [32, 32]],
  cntrl: [[0, 31], [127, 127]],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [[33, 47], [58, 64], [91, 96], [123, 126]],
  space: [[9, 13], [32, 32]],
  upper: [[65, 90]],
  word: [[48, 57], [65, 90], [95, 95], [97, 122]],
  xdigit: [[48, 57], [65, 70], [97, 102]],
}

const hex = (cp: number) => cp.toString(16)
const lit = (cp: number): string => (/[A-Za-z0-9_ ]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : `\\u{${hex(cp)}}`)

/** A class operand in JavaScript's `v`-mode syntax: always a bracketed class or a property escape. */
type ClassOperand = string

/**
 * Translates `pattern` (Rust syntax) to a JavaScript RegExp (`v` flag).
 * Throws RegexSyntaxError with Rust's wording for invalid patterns.
 */
export const translateRustRegex = (pattern: string, options: { readonly caseInsensitive: boolean } & LineOptions): TranslatedRegex => {
  // ripgrep hands the regex engine `(?:PATTERN)`; parsing the same text keeps
  // errors identical (a `(?x)` comment that swallows the closing parenthesis).
  const text = `(?:${pattern})`
  const cps = Array.from(text)
  const globalI = options.caseInsensitive
  let pos = 0
  const crlf = options.crlf === true
  let flags: Flags = { i: globalI, m: true, s: false, U: false, u: true, x: false, R: crlf }
  const names = new Set<string>()
  let mentionsCr = false
  let endOfText = false
  const sawCodePoint = (cp: number): number => {
    if (cp === 13) mentionsCr = true
    return cp
  }
  // With CRLF lines ripgrep strips `\r` from every class, as it strips `\n`. And with Unicode on, no class matches a
  // byte that is not UTF-8, which the search keeps as U+DC80–U+DCFF (path-bytes.ts decodeTextKeeping).
  const searchable = (operand: ClassOperand): ClassOperand => {
    const left = crlf ? `[${operand}--[\\r]]` : operand
    return flags.u ? `[${left}--${NOT_UTF8}]` : left
  }

  const peek = (k = 0) => cps[pos + k]
  const eof = () => pos >= cps.length
  const fail = (message: string): never => {
    throw new RegexSyntaxError(message)
  }
  const unsupported = (message: string): never => {
    throw new RegexSyntaxError(message, true)
  }

  const skipSpace = () => {
    if (!flags.x) return
    for (;;) {
      const c = peek()
      if (c === undefined) return
      if (/\s/u.test(c)) {
        pos++
        continue
      }
      if (c === "#") {
        while (!eof() && peek() !== "\n") pos++
        continue
      }
      return
    }
  }

  const cased = (src: string, ci: boolean): string => (ci === globalI ? src : ci ? `(?i:${src})` : `(?-i:${src})`)

  const literal = (cp: number): string => {
    if (cp === 10) fail('the literal "\\n" is not allowed in a regex')
    sawCodePoint(cp)
    if (cp === 13 && crlf) fail('the literal "\\r" is not allowed in a regex')
    if (flags.i && !flags.u) {
      const c = String.fromCodePoint(cp)
      if (/[A-Za-z]/.test(c)) return cased(`[${c.toLowerCase()}${c.toUpperCase()}]`, false)
      return cased(lit(cp), false)
    }
    return cased(lit(cp), flags.i)
  }

  const word = () => (flags.u ? WORD_U : WORD_A)
  const wordAssert = (kind: "b" | "B" | "start" | "end" | "start-half" | "end-half"): string => {
    const w = cased(word(), false)
    switch (kind) {
      case "b":
        return `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`
      case "B":
        return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`
      case "start":
        return `(?:(?<!${w})(?=${w}))`
      case "end":
        return `(?:(?<=${w})(?!${w}))`
      case "start-half":
        return `(?<!${w})`
      case "end-half":
        return `(?!${w})`
    }
  }

  const readHex = (min: number, max: number): number => {
    let digits = ""
    while (digits.length < max && peek() !== undefined && /[0-9A-Fa-f]/.test(peek()!)) digits += cps[pos++]
    if (digits.length < min) fail("invalid hexadecimal digit")
    return parseInt(digits, 16)
  }

  /** `\x7F`, `\x{…}`, `\u007F`, `\u{…}`, `\U0000007F`, `\U{…}` after the letter. */
  const hexEscape = (letter: string): number => {
    let cp: number
    if (peek() === "{") {
      pos++
      const start = pos
      while (!eof() && peek() !== "}") pos++
      if (eof()) fail("unclosed hexadecimal escape")
      const digits = cps.slice(start, pos).join("")
      pos++
      if (!/^[0-9A-Fa-f]{1,8}$/.test(digits)) fail("invalid hexadecimal digit")
      cp = parseInt(digits, 16)
    } else {
      cp = readHex(letter === "x" ? 2 : letter === "u" ? 4 : 8, letter === "x" ? 2 : letter === "u" ? 4 : 8)
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail("hexadecimal literal is not a Unicode scalar value")
    if (!flags.u && cp > 0x7f) unsupported("byte escapes above \\x7F with Unicode disabled are not supported by the built-in search")
    return cp
  }

  const perlClass = (c: string): ClassOperand => {
    const u = flags.u
    switch (c) {
      case "d":
        return u ? DIGIT_U : "[0-9]"
      case "D":
        return u ? "\\P{Nd}" : "[^0-9]"
      case "s":
        return u ? SPACE_U : SPACE_A
      case "S":
        return u ? "\\P{White_Space}" : `[^${SPACE_A.slice(1, -1)}]`
      case "w":
        return u ? WORD_U : WORD_A
      default:
        return u ? `[^${WORD_U.slice(1, -1)}]` : "[^A-Za-z0-9_]"
    }
  }

  /** `\pL`, `\p{Greek}`, `\P{sc=Greek}`, `\p{^Lu}` after the `p`/`P`. */
  const unicodeClass = (negated: boolean): ClassOperand => {
    let body: string
    if (peek() === "{") {
      pos++
      const start = pos
      while (!eof() && peek() !== "}") pos++
      if (eof()) fail("unclosed Unicode class")
      body = cps.slice(start, pos).join("").trim()
      pos++
    } else {
      const c = cps[pos++]
      if (c === undefined) fail("incomplete escape sequence, reached end of pattern prematurely")
      body = c!
    }
    if (body.startsWith("^")) {
      negated = !negated
      body = body.slice(1)
    }
    let key: string | undefined
    let value = body
    const neq = body.indexOf("!=")
    const eq = neq === -1 ? body.search(/[=:]/) : -1
    if (neq !== -1) {
      key = body.slice(0, neq)
      value = body.slice(neq + 2)
      negated = !negated
    } else if (eq !== -1) {
      key = body.slice(0, eq)
      value = body.slice(eq + 1)
    }
    const resolved = resolveProperty(key?.trim(), value.trim())
    if (resolved === undefined) unsupported(`the Unicode class \\p{${body}} is not supported by the built-in search`)
    return negated ? resolved!.replace(/^\\p/, "\\P") : resolved!
  }

  /** One escape outside a class: returns JS source. */
  const escapeAtom = (): string => {
    const c = cps[pos++]
    if (c === undefined) return fail("incomplete escape sequence, reached end of pattern prematurely")
    switch (c) {
      case "a":
        return literal(7)
      case "f":
        return literal(12)
      case "t":
        return literal(9)
      case "n":
        return literal(10)
      case "r":
        return literal(13)
      case "v":
        return literal(11)
      case "x":
      case "u":
      case "U":
        return literal(hexEscape(c))
      case "d":
      case "D":
      case "s":
      case "S":
      case "w":
      case "W":
        // ASCII classes (Unicode off) are already closed under ASCII case folding; JavaScript's would add ſ and K.
        return cased(searchable(perlClass(c)), flags.u ? flags.i : false)
      case "p":
      case "P":
        return cased(searchable(unicodeClass(c === "P")), flags.i)
      case "A":
        return "^"
      case "z":
        // ripgrep's CRLF mode takes only "\r\n" off a line, so its `\z` lies after the `\n` of a LF line: such
        // patterns are not searched in CRLF mode (crlfModeFor).
        endOfText = true
        return "$"
      case "<":
        return wordAssert("start")
      case ">":
        return wordAssert("end")
      case "b":
        if (peek() === "{") {
          const close = cps.indexOf("}", pos)
          const name = close === -1 ? "" : cps.slice(pos + 1, close).join("")
          if (name === "start" || name === "end" || name === "start-half" || name === "end-half") {
            pos = close + 1
            return wordAssert(name)
          }
          // `\b{` followed by a repetition is a repeated word boundary in Rust.
        }
        return wordAssert("b")
      case "B":
        return wordAssert("B")
      default:
        if (/[0-9]/.test(c)) return fail("backreferences are not supported")
        if (/[A-Za-z]/.test(c) || c.codePointAt(0)! > 0x7f) return fail("unrecognized escape sequence")
        return literal(c.codePointAt(0)!)
    }
  }

  // ---- character classes -------------------------------------------------

  /** Parses a class after its `[`; returns a v-mode class operand. */
  const parseClass = (): ClassOperand => {
    let negated = false
    skipSpace()
    if (peek() === "^") {
      negated = true
      pos++
    }
    // Operands of the current union, and the pending binary operation.
    let union: Array<string> = []
    let left: ClassOperand | undefined
    let op: "&&" | "--" | "~~" | undefined
    let first = true
    const flushUnion = (): ClassOperand => {
      const operand = `[${union.join("")}]`
      union = []
      return operand
    }
    const combine = () => {
      const right = flushUnion()
      if (left === undefined || op === undefined) {
        left = right
        return
      }
      left = op === "&&" ? `[${left}&&${right}]` : op === "--" ? `[${left}--${right}]` : `[[${left}--${right}][${right}--${left}]]`
      op = undefined
    }
    for (;;) {
      skipSpace()
      const c = peek()
      if (c === undefined) fail("unclosed character class")
      if (c === "]" && !first) {
        pos++
        break
      }
      if (!first && (c === "&" || c === "-" || c === "~") && peek(1) === c) {
        pos += 2
        combine()
        op = c === "&" ? "&&" : c === "-" ? "--" : "~~"
        continue
      }
      first = false
      if (c === "[") {
        if (peek(1) === ":") {
          const ascii = asciiClass()
          if (ascii !== undefined) {
            union.push(ascii)
            continue
          }
        }
        pos++
        union.push(parseClass())
        continue
      }
      const lo = classAtom()
      if (typeof lo === "string") {
        union.push(lo)
        continue
      }
      skipSpace()
      if (peek() === "-" && peek(1) !== "]" && peek(1) !== "-" && peek(1) !== undefined) {
        pos++
        skipSpace()
        const hi = classAtom()
        if (typeof hi === "string") fail("invalid character class range, the end must be a single character")
        if ((hi as number) < lo) fail("invalid character class range, the start must be <= the end")
        union.push(rangeSource(lo, hi as number))
        continue
      }
      union.push(rangeSource(lo, lo))
    }
    combine()
    const body = left ?? "[]"
    return negated ? `[^${body}]` : body
  }

  /** `[:alpha:]` / `[:^alpha:]` at `pos` (on the `[`); undefined when it is not one. */
  const asciiClass = (): ClassOperand | undefined => {
    const close = cps.indexOf(":", pos + 2)
    if (close === -1 || cps[close + 1] !== "]") return undefined
    let name = cps.slice(pos + 2, close).join("")
    let negated = false
    if (name.startsWith("^")) {
      negated = true
      name = name.slice(1)
    }
    // An unknown name (Object's own, constructor or __proto__, too) is no ASCII class: Rust then reads `[:foo:]` as a
    // nested class of those characters.
    const ranges = Object.hasOwn(ASCII_CLASSES, name) ? ASCII_CLASSES[name] : undefined
    if (ranges === undefined) return undefined
    pos = close + 2
    const body = ranges.map(([a, b]) => rangeSource(a, b)).join("")
    return negated ? `[^${body}]` : `[${body}]`
  }

  /** One class member: a code point, or a class operand for escapes like `\d`. */
  const classAtom = (): number | ClassOperand => {
    const c = cps[pos++]!
    if (c !== "\\") return sawCodePoint(c.codePointAt(0)!)
    const e = cps[pos++]
    if (e === undefined) return fail("incomplete escape sequence, reached end of pattern prematurely")
    switch (e) {
      case "a":
        return 7
      case "f":
        return 12
      case "t":
        return 9
      case "n":
        return 10
      case "r":
        return sawCodePoint(13)
      case "v":
        return 11
      case "x":
      case "u":
      case "U":
        return sawCodePoint(hexEscape(e))
      case "d":
      case "D":
      case "s":
      case "S":
      case "w":
      case "W": {
        const p = perlClass(e)
        return p.startsWith("[") ? p : `[${p}]`
      }
      case "p":
      case "P":
        return `[${unicodeClass(e === "P")}]`
      default:
        if (/[0-9]/.test(e)) return fail("backreferences are not supported")
        if (/[A-Za-z]/.test(e) || e.codePointAt(0)! > 0x7f) return fail("unrecognized escape sequence")
        return e.codePointAt(0)!
    }
  }

  /** A range as v-mode source, with ASCII-only case folding when Unicode is off. */
  const rangeSource = (lo: number, hi: number): string => {
    // ripgrep strips the line terminator from classes: a line never holds one anyway.
    const one = (a: number, b: number) => (a === b ? lit(a) : `${lit(a)}-${lit(b)}`)
    if (!(flags.i && !flags.u)) return one(lo, hi)
    const parts = [one(lo, hi)]
    const swap = (a: number, b: number, from: number, to: number, delta: number) => {
      const s = Math.max(a, from)
      const e = Math.min(b, to)
      if (s <= e) parts.push(one(s + delta, e + delta))
    }
    swap(lo, hi, 65, 90, 32)
    swap(lo, hi, 97, 122, -32)
    return parts.join("")
  }

  /** Wraps a class in the case handling its flags ask for. */
  const classNode = (operand: ClassOperand): string => (flags.i && !flags.u ? cased(searchable(operand), false) : cased(searchable(operand), flags.i))

  // ---- groups, alternation, repetition -----------------------------------

  const parseFlags = (): { set: Flags; scoped: boolean } => {
    const next: Flags = { ...flags }
    let negate = false
    let any = false
    for (;;) {
      const c = cps[pos++]
      if (c === undefined) fail("unclosed group")
      if (c === ")") {
        if (!any) fail("empty flag set")
        return { set: next, scoped: false }
      }
      if (c === ":") return { set: next, scoped: true }
      if (c === "-") {
        if (negate) fail("repeated negation in flag set")
        negate = true
        continue
      }
      if (!"imsUuxR".includes(c!)) fail("unrecognized flag")
      any = true
      next[c as keyof Flags] = !negate
    }
  }

  const parseGroup = (): string => {
    // at `(`
    pos++
    if (peek() === "?") {
      pos++
      const c = peek()
      if (c === "=" || c === "!" || (c === "<" && (peek(1) === "=" || peek(1) === "!"))) {
        fail("look-around, including look-ahead and look-behind, is not supported")
      }
      if (c === "P" && peek(1) === "<") pos++
      if (peek() === "<") {
        pos++
        const start = pos
        while (!eof() && peek() !== ">") pos++
        if (eof()) fail("unclosed capture group name")
        const name = cps.slice(start, pos).join("")
        pos++
        if (!/^[_A-Za-z][_A-Za-z0-9.[\]]*$/u.test(name)) fail("invalid capture group character")
        if (names.has(name)) fail("duplicate capture group name")
        names.add(name)
        return scopedBody()
      }
      const parsed = parseFlags()
      if (!parsed.scoped) {
        flags = parsed.set
        return ""
      }
      const saved = flags
      flags = parsed.set
      const body = parseAlternation()
      flags = saved
      return `(?:${body})`
    }
    return scopedBody()
  }

  /** A group's body: flags set inside end with the group. */
  const scopedBody = (): string => {
    const saved = flags
    const body = parseAlternation()
    flags = saved
    return `(?:${body})`
  }

  /** Parses up to the closing `)` of the current group (consumed), or the end. */
  const parseAlternation = (): string => {
    const branches: Array<string> = []
    let current = ""
    let lastAtom: string | undefined
    const commit = () => {
      if (lastAtom !== undefined) current += lastAtom
      lastAtom = undefined
    }
    for (;;) {
      skipSpace()
      const c = peek()
      if (c === undefined) fail("unclosed group")
      if (c === ")") {
        pos++
        commit()
        branches.push(current)
        return branches.join("|")
      }
      if (c === "|") {
        pos++
        commit()
        branches.push(current)
        current = ""
        continue
      }
      if (c === "*" || c === "+" || c === "?" || c === "{") {
        if (c === "{" && !looksLikeCount()) {
          if (lastAtom === undefined) fail("repetition operator missing expression")
          fail("repetition quantifier expects a valid decimal")
        }
        if (lastAtom === undefined) fail("repetition operator missing expression")
        lastAtom = repeat(lastAtom!)
        continue
      }
      commit()
      lastAtom = atom()
    }
  }

  const looksLikeCount = () => {
    let k = pos + 1
    const skip = () => {
      while (flags.x && cps[k] !== undefined && /\s/u.test(cps[k]!)) k++
    }
    skip()
    if (!/[0-9]/.test(cps[k] ?? "")) return false
    return true
  }

  const repeat = (atomSource: string): string => {
    const c = cps[pos++]!
    let quant: string
    if (c === "{") {
      const readInt = (): number => {
        skipSpace()
        let digits = ""
        while (/[0-9]/.test(peek() ?? "")) digits += cps[pos++]
        if (digits === "") fail("repetition quantifier expects a valid decimal")
        skipSpace()
        return Number(digits)
      }
      const min = readInt()
      let max: number | undefined = min
      if (peek() === ",") {
        pos++
        skipSpace()
        max = peek() === "}" ? undefined : readInt()
      }
      if (peek() !== "}") fail(eof() ? "unclosed counted repetition" : "repetition quantifier expects a valid decimal")
      pos++
      if (max !== undefined && max < min) fail("invalid repetition count range, the start must be <= the end")
      if (min > 1000 || (max ?? 0) > 1000) unsupported("repetition counts above 1000 are not supported by the built-in search")
      quant = max === undefined ? `{${min},}` : max === min ? `{${min}}` : `{${min},${max}}`
    } else {
      quant = c
    }
    let lazy = false
    if (peek() === "?") {
      pos++
      lazy = true
    }
    if (flags.U) lazy = !lazy
    return `(?:${atomSource})${quant}${lazy ? "?" : ""}`
  }

  const atom = (): string => {
    const c = peek()!
    switch (c) {
      case "(":
        return parseGroup()
      case "[": {
        pos++
        return classNode(parseClass())
      }
      case ".":
        pos++
        return searchable(flags.R ? "[^\\r\\n]" : flags.s ? "[\\s\\S]" : "[^\\n]")
      case "^":
        pos++
        if (!(flags.R && flags.m)) return "^"
        // After a `\r` too, but not between `\r` and `\n` (the line's end, or a `\n` in a block of lines).
        return options.unterminated ? "(?:^|(?<=\\r))" : `(?:^|(?<=\\r)(?!\\n|${END}))`
      case "$":
        pos++
        if (!flags.R) return "$"
        return options.unterminated ? `(?=\\r|${END})` : `(?=\\r|(?:\\n|${END})(?<!\\r))`
      case "\\":
        pos++
        return escapeAtom()
      default:
        pos++
        return literal(c.codePointAt(0)!)
    }
  }

  // `text` starts with "(" — the whole pattern is one group.
  const source = parseGroup()
  if (!eof()) {
    if (peek() === ")") fail("unopened group")
    fail("unexpected trailing input")
  }
  const jsFlags = globalI ? "iv" : "v"
  try {
    new RegExp(source, jsFlags)
  } catch (e) {
    unsupported(`the built-in search cannot run this pattern (${(e as Error).message})`)
  }
  return { source, flags: jsFlags, mentionsCr: mentionsCr || endOfText }
}

/** The bytes that are not UTF-8, as the in-process search keeps them (escaped). */
const NOT_UTF8 = "[\\u{DC80}-\\u{DCFF}]"

/** The end of the text, whatever the `m` flag says (a line tested alone, or a block of lines). */
const END = "(?![\\s\\S])"

/**
 * Whether ripgrep should read lines as CRLF (`--crlf`) for this pattern: yes, so `foo$` finds `foo` at the end of
 * a CRLF line, unless the pattern names a carriage return itself (`\r$` looks for CRLF endings), which CRLF mode
 * would refuse, or uses `\z` (see translateRustRegex). An invalid pattern says yes: the engine reports it. A valid
 * one the built-in search cannot run (`a{1001}`) is judged by its text, erring towards no: a `\r` in it must not
 * turn a pattern ripgrep runs into one it refuses.
 */
export const crlfModeFor = (pattern: string): boolean => {
  try {
    return !translateRustRegex(pattern, { caseInsensitive: false }).mentionsCr
  } catch (e) {
    return !(e instanceof RegexSyntaxError && e.unsupported && MAY_NAME_CR.test(pattern))
  }
}

/** Text that may name a carriage return or `\z` (a CR itself, `\r`, `\z`, `\x0D`, `\x{d}`, `\u000D`, `\U{D}`…). */
const MAY_NAME_CR = /\r|\\[rz]|\\[xuU]\{?0*[dD]/
