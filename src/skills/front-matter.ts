/**
 * The YAML front matter of a SKILL.md: a small, strict parser for the subset
 * skills use, so that a malformed file is reported with a line and a reason
 * instead of being half-read.
 *
 * Accepted, between a first line `---` and a closing `---`:
 * - top-level `key: value` lines (keys of letters, digits, `_`, `-`, `.`);
 * - plain values (a `#` after a space starts a comment; indented lines below
 *   continue the value, folded into one line), 'single-quoted' and
 *   "double-quoted" values (which may span lines), `|` and `>` block scalars
 *   with the `-`/`+` chomping indicators and an optional indentation digit;
 * - lists: `[a, "b"]` on one line, or `- item` lines below the key;
 * - one level of mapping below a key (`metadata:` then indented `key: value`
 *   lines), whose values are strings;
 * - blank lines and `#` comment lines.
 *
 * Refused, with the reason: tabs in indentation, duplicate keys, a plain
 * value containing `: ` (YAML would read a second mapping; quote it),
 * anchors, aliases and tags, flow mappings other than `{}`, deeper nesting.
 * Every value is a string: `true` and `3` are not converted.
 */

export type FrontMatterValue = string | ReadonlyArray<string> | Readonly<Record<string, string>>

export type FrontMatterResult =
  | {
      readonly ok: true
      readonly fields: Readonly<Record<string, FrontMatterValue>>
      /** Everything after the closing `---` line (line endings normalised to `\n`). */
      readonly body: string
    }
  | {
      readonly ok: false
      readonly reason: string
      /** The 1-based line of the file the problem is on, when there is one. */
      readonly line?: number
    }

class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message)
  }
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?=[ \t]|$)[ \t]*(.*)$/
const RESERVED_START = /^[&*!%@`]/

/** The indentation of a line (spaces), or an error when it contains a tab. */
const indentOf = (line: string, lineNo: number): number => {
  const lead = /^[ \t]*/.exec(line)![0]
  if (lead.includes("\t") && line.trim() !== "") throw new FrontMatterError("tabs are not allowed for indentation (use spaces)", lineNo)
  return lead.length
}

const isBlank = (line: string) => line.trim() === ""
/** Leading spaces only (a block scalar's content may begin with a tab after its indentation). */
const spacesOf = (line: string) => /^ */.exec(line)![0].length
const isComment = (line: string) => line.trimStart().startsWith("#")

/** A plain scalar's text without a trailing ` # comment`. */
const stripComment = (text: string): string => {
  const m = /(^|[ \t])#/.exec(text)
  return (m ? text.slice(0, m.index) : text).trim()
}

/** Lines of the front matter with their file line numbers, and a cursor over them. */
class Lines {
  i = 0
  constructor(
    readonly lines: ReadonlyArray<string>,
    /** File line number of lines[0]. */
    readonly firstLine: number,
  ) {}
  get done() {
    return this.i >= this.lines.length
  }
  lineNo(index = this.i) {
    return this.firstLine + index
  }
  peek(offset = 0): string | undefined {
    return this.lines[this.i + offset]
  }
  /** The index of the next non-blank, non-comment line at or after the cursor. */
  nextContent(): number {
    let j = this.i
    while (j < this.lines.length && (isBlank(this.lines[j]!) || isComment(this.lines[j]!))) j++
    return j
  }
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
  let close = -1
  for (let j = 1; j < all.length; j++) {
    const t = all[j]!.trimEnd()
    if (t === "---" || t === "...") {
      close = j
      break
    }
  }
  if (close < 0) return { ok: false, reason: "the front matter is not closed by a '---' line" }
  try {
    const fields = parseMapping(new Lines(all.slice(1, close), 2))
    return { ok: true, fields, body: all.slice(close + 1).join("\n") }
  } catch (e) {
    if (e instanceof FrontMatterError) return { ok: false, reason: e.message, ...(e.line !== undefined ? { line: e.line } : {}) }
    throw e
  }
}

const parseMapping = (lines: Lines): Record<string, FrontMatterValue> => {
  const fields: Record<string, FrontMatterValue> = {}
  while (!lines.done) {
    const line = lines.peek()!
    const lineNo = lines.lineNo()
    if (isBlank(line) || isComment(line)) {
      lines.i++
      continue
    }
    if (indentOf(line, lineNo) > 0) throw new FrontMatterError("unexpected indentation (a top-level line must start with 'key:')", lineNo)
    const m = KEY.exec(line)
    if (!m) throw new FrontMatterError(`expected 'key: value', got '${clip(line)}'`, lineNo)
    const key = m[1]!
    if (Object.hasOwn(fields, key)) throw new FrontMatterError(`duplicate key '${key}'`, lineNo)
    lines.i++
    fields[key] = parseValue(m[2]!, 0, lineNo, lines, true)
  }
  return fields
}

/**
 * The value after `key:` at `parentIndent`: inline text, or the indented
 * block below (a list or, at the top level, a mapping). `nested` allows a
 * list or mapping below.
 */
const parseValue = (inline: string, parentIndent: number, lineNo: number, lines: Lines, nested: boolean): FrontMatterValue => {
  const rest = inline.trim()
  if (rest === "" || rest.startsWith("#")) {
    if (!nested) {
      const j = lines.nextContent()
      const next = lines.lines[j]
      if (next !== undefined && indentOf(next, lines.lineNo(j)) > parentIndent && (/^-(?:[ \t]|$)/.test(next.trimStart()) || KEY.test(next.trimStart()))) {
        throw new FrontMatterError("only one level of nesting is supported", lines.lineNo(j))
      }
      return readContinuation("", parentIndent, lines)
    }
    const j = lines.nextContent()
    const next = lines.lines[j]
    if (next === undefined) return ""
    const indent = indentOf(next, lines.lineNo(j))
    const item = /^-(?:[ \t]|$)/.test(next.trimStart())
    // A list may sit at the key's own indentation ("key:\n- a"); anything else must be indented.
    if (item && indent >= parentIndent) return parseList(lines, indent)
    if (indent <= parentIndent) return ""
    if (parentIndent > 0) throw new FrontMatterError("only one level of nesting is supported", lines.lineNo(j))
    return parseSubMapping(lines, indent)
  }
  return parseScalar(rest, parentIndent, lineNo, lines)
}

/** A scalar (or a one-line flow list) starting inline. */
const parseScalar = (rest: string, parentIndent: number, lineNo: number, lines: Lines): FrontMatterValue => {
  const c = rest[0]!
  if (c === '"' || c === "'") return parseQuoted(rest, parentIndent, lineNo, lines)
  if (c === "|" || c === ">") return parseBlockScalar(rest, parentIndent, lineNo, lines)
  if (c === "[") return parseFlowList(stripComment(rest), lineNo)
  if (c === "{") {
    if (/^\{\s*\}$/.test(stripComment(rest))) return {}
    throw new FrontMatterError("flow mappings ({…}) are not supported: write one 'key: value' per line, indented below the key", lineNo)
  }
  if (RESERVED_START.test(rest)) throw new FrontMatterError(`YAML anchors, aliases, tags and reserved characters are not supported ('${clip(rest)}'); quote the value`, lineNo)
  if (/^-(?:[ \t]|$)/.test(rest)) throw new FrontMatterError("a list must start on the line below its key ('- item' lines)", lineNo)
  return readContinuation(checkPlain(stripComment(rest), lineNo), parentIndent, lines)
}

const checkPlain = (text: string, lineNo: number): string => {
  if (/:(?:[ \t]|$)/.test(text)) throw new FrontMatterError(`the value '${clip(text)}' contains ': ', which YAML reads as another key; put the value in quotes`, lineNo)
  return text
}

/** A plain scalar's continuation lines (indented deeper than its key), folded into it. */
const readContinuation = (first: string, parentIndent: number, lines: Lines): string => {
  let value = first
  let pendingBreaks = 0
  while (!lines.done) {
    const line = lines.peek()!
    if (isBlank(line)) {
      pendingBreaks++
      lines.i++
      continue
    }
    const lineNo = lines.lineNo()
    if (indentOf(line, lineNo) <= parentIndent || isComment(line)) break
    const part = checkPlain(stripComment(line), lineNo)
    value = value === "" ? part : `${value}${pendingBreaks > 0 ? "\n".repeat(pendingBreaks) : " "}${part}`
    pendingBreaks = 0
    lines.i++
  }
  // Blank lines that ended the value belong to whatever follows.
  if (pendingBreaks > 0) lines.i -= pendingBreaks
  return value
}

/** A quoted scalar, possibly over several lines (line breaks fold to spaces, blank lines to newlines). */
const parseQuoted = (rest: string, parentIndent: number, lineNo: number, lines: Lines): string => {
  const quote = rest[0]!
  const kind = quote === '"' ? "double" : "single"
  let text = rest.slice(1)
  let out = ""
  let line = lineNo
  for (;;) {
    let escapedBreak = false
    let i = 0
    while (i < text.length) {
      const c = text[i]!
      if (quote === "'" && c === "'") {
        if (text[i + 1] === "'") {
          out += "'"
          i += 2
          continue
        }
        return finishQuoted(out, text.slice(i + 1), line)
      }
      if (quote === '"' && c === '"') return finishQuoted(out, text.slice(i + 1), line)
      if (quote === '"' && c === "\\") {
        if (i + 1 >= text.length) {
          // An escaped line break: the next line continues without a space.
          escapedBreak = true
          break
        }
        const { value, length } = unescape(text, i, line)
        out += value
        i += length
        continue
      }
      out += c
      i++
    }
    // The string continues on the next line.
    if (!escapedBreak) out = out.replace(/[ \t]+$/, "")
    let breaks = 0
    while (!lines.done && isBlank(lines.peek()!)) {
      breaks++
      lines.i++
    }
    const next = lines.peek()
    if (next === undefined || indentOf(next, lines.lineNo()) <= parentIndent) {
      throw new FrontMatterError(`unterminated ${kind}-quoted string`, lineNo)
    }
    line = lines.lineNo()
    lines.i++
    if (breaks > 0) out += "\n".repeat(breaks)
    else if (!escapedBreak) out += " "
    text = next.trimStart()
  }
}

const finishQuoted = (value: string, after: string, lineNo: number): string => {
  const tail = after.trim()
  if (tail !== "" && !tail.startsWith("#")) throw new FrontMatterError(`unexpected text after the closing quote: '${clip(tail)}'`, lineNo)
  if (tail.startsWith("#") && !/^[ \t]/.test(after)) throw new FrontMatterError("a comment after a quoted value needs a space before '#'", lineNo)
  return value
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b",
  " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\u0085", _: "\u00a0", L: "\u2028", P: "\u2029",
}

const unescape = (text: string, i: number, lineNo: number): { value: string; length: number } => {
  const c = text[i + 1]!
  const simple = SIMPLE_ESCAPES[c]
  if (simple !== undefined) return { value: simple, length: 2 }
  const digits = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0
  const hex = text.slice(i + 2, i + 2 + digits)
  if (digits > 0 && new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) {
    const code = Number.parseInt(hex, 16)
    if (code <= 0x10ffff) return { value: String.fromCodePoint(code), length: 2 + digits }
  }
  throw new FrontMatterError(`invalid escape '\\${c}' in a double-quoted string`, lineNo)
}

/** `|` (literal) and `>` (folded) block scalars, with chomping (`-`, `+`) and an indentation digit. */
const parseBlockScalar = (rest: string, parentIndent: number, lineNo: number, lines: Lines): string => {
  const header = /^([|>])([1-9]?)([+-]?)([1-9]?)[ \t]*(?:#.*)?$/.exec(rest)
  if (!header || (header[2] && header[4])) throw new FrontMatterError(`invalid block scalar header '${clip(rest)}'`, lineNo)
  const folded = header[1] === ">"
  const digit = header[2] || header[4]
  const chomp = header[3] as "" | "-" | "+"
  // The block: the following lines that are blank or indented deeper than the key.
  const raw: Array<{ text: string; no: number }> = []
  while (!lines.done) {
    const line = lines.peek()!
    const no = lines.lineNo()
    if (!isBlank(line) && spacesOf(line) <= parentIndent) break
    raw.push({ text: line, no })
    lines.i++
  }
  const firstContent = raw.find((l) => !isBlank(l.text))
  const indent = digit ? parentIndent + Number(digit) : firstContent ? spacesOf(firstContent.text) : parentIndent + 1
  const body: Array<string> = []
  for (const l of raw) {
    if (isBlank(l.text)) {
      body.push("")
      continue
    }
    if (spacesOf(l.text) < indent) {
      throw new FrontMatterError(
        l.text[spacesOf(l.text)] === "\t" ? "tabs are not allowed for indentation (use spaces)" : "a line of the block scalar is indented less than its first line",
        l.no,
      )
    }
    body.push(l.text.slice(indent))
  }
  let trailing = 0
  while (body.length > 0 && body[body.length - 1] === "") {
    body.pop()
    trailing++
  }
  const text = folded ? foldLines(body) : body.join("\n")
  if (text === "") return chomp === "+" ? "\n".repeat(trailing) : ""
  if (chomp === "-") return text
  if (chomp === "+") return `${text}\n${"\n".repeat(trailing)}`
  return `${text}\n`
}

/** YAML folding: line breaks between ordinary lines become spaces, blank lines newlines; more-indented lines keep their breaks. */
const foldLines = (body: ReadonlyArray<string>): string => {
  let out = ""
  let started = false
  let prevMore = false
  let empty = 0
  for (const line of body) {
    if (line === "") {
      empty++
      continue
    }
    const more = line.startsWith(" ") || line.startsWith("\t")
    if (!started) out += "\n".repeat(empty)
    else if (empty > 0) out += "\n".repeat(prevMore || more ? empty + 1 : empty)
    else out += prevMore || more ? "\n" : " "
    out += line
    started = true
    prevMore = more
    empty = 0
  }
  return out
}

/** `[a, "b, c", 'd']` on one line. */
const parseFlowList = (text: string, lineNo: number): ReadonlyArray<string> => {
  if (!text.endsWith("]")) throw new FrontMatterError("a flow list ([…]) must close on the same line", lineNo)
  const inner = text.slice(1, -1)
  if (inner.trim() === "") return []
  const items: Array<string> = []
  let current = ""
  let quote: string | undefined
  let quoted = false
  const push = () => {
    const t = quoted ? current : current.trim()
    if (!quoted && t === "") throw new FrontMatterError("empty item in a flow list", lineNo)
    if (!quoted && /^[[{]/.test(t)) throw new FrontMatterError("nested lists and mappings are not supported", lineNo)
    if (!quoted) checkPlain(t, lineNo)
    items.push(t)
    current = ""
    quoted = false
  }
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!
    if (quote) {
      if (c === quote) {
        if (quote === "'" && inner[i + 1] === "'") {
          current += "'"
          i++
        } else quote = undefined
      } else if (quote === '"' && c === "\\") {
        const { value, length } = unescape(inner, i, lineNo)
        current += value
        i += length - 1
      } else current += c
      continue
    }
    if (c === ",") push()
    else if (quoted) {
      if (c.trim() !== "") throw new FrontMatterError("unexpected text after a quoted list item", lineNo)
    } else if ((c === '"' || c === "'") && current.trim() === "") {
      quote = c
      quoted = true
      current = ""
    } else current += c
  }
  if (quote) throw new FrontMatterError("unterminated quoted string in a flow list", lineNo)
  // A trailing comma ("[a, b,]") leaves nothing to push.
  if (quoted || current.trim() !== "") push()
  return items
}

/** `- item` lines at `indent`. Items are scalars. */
const parseList = (lines: Lines, indent: number): ReadonlyArray<string> => {
  const items: Array<string> = []
  while (!lines.done) {
    const j = lines.nextContent()
    const line = lines.lines[j]
    if (line === undefined) {
      lines.i = j
      break
    }
    const no = lines.lineNo(j)
    const lineIndent = indentOf(line, no)
    const m = /^-(?:[ \t]+(.*)|)$/.exec(line.trimStart())
    if (lineIndent !== indent || !m) {
      if (lineIndent > indent) throw new FrontMatterError("unexpected indentation in a list", no)
      break
    }
    lines.i = j + 1
    const rest = (m[1] ?? "").trim()
    if (rest === "" || rest.startsWith("#")) throw new FrontMatterError("empty list item", no)
    if (/^-(?:[ \t]|$)/.test(rest) || KEY.test(rest)) throw new FrontMatterError("list items must be plain strings (no nested lists or mappings)", no)
    const value = parseScalar(rest, indent, no, lines)
    if (typeof value !== "string") throw new FrontMatterError("list items must be plain strings (no nested lists or mappings)", no)
    items.push(value)
  }
  return items
}

/** One level of `key: value` lines at `indent`, values strings. */
const parseSubMapping = (lines: Lines, indent: number): Record<string, string> => {
  const map: Record<string, string> = {}
  while (!lines.done) {
    const j = lines.nextContent()
    const line = lines.lines[j]
    if (line === undefined) {
      lines.i = j
      break
    }
    const no = lines.lineNo(j)
    const lineIndent = indentOf(line, no)
    if (lineIndent < indent) break
    if (lineIndent > indent) throw new FrontMatterError("unexpected indentation (only one level of nesting is supported)", no)
    const m = KEY.exec(line.trimStart())
    if (!m) throw new FrontMatterError(`expected 'key: value', got '${clip(line.trim())}'`, no)
    const key = m[1]!
    if (Object.hasOwn(map, key)) throw new FrontMatterError(`duplicate key '${key}'`, no)
    lines.i = j + 1
    const value = parseValue(m[2]!, indent, no, lines, false)
    if (typeof value !== "string") throw new FrontMatterError(`the value of '${key}' must be a string (only one level of nesting is supported)`, no)
    map[key] = value
  }
  return map
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s)
