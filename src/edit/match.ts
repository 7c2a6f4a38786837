/**
 * Finding where an edit's old_string sits in a file: an exact match
 * first, then a short chain of careful fallbacks that each must find exactly
 * one place. Texts here use LF line breaks (see lfView); offsets are offsets
 * into the text given.
 */

/** How old_string was found. Anything but "exact" is reported as status partial. */
export type MatchStrategy = "exact" | "line_trimmed" | "indentation" | "whitespace"

/** The fallbacks, in the order they are tried, each looser than the last. */
export const FALLBACK_STRATEGIES: ReadonlyArray<Exclude<MatchStrategy, "exact">> = ["line_trimmed", "indentation", "whitespace"]

export const STRATEGY_DESCRIPTIONS: Readonly<Record<MatchStrategy, string>> = {
  exact: "exact text",
  line_trimmed: "lines equal after trimming trailing whitespace",
  indentation: "lines equal apart from a uniform indentation difference; new_string was re-indented to match",
  whitespace: "lines equal after collapsing runs of whitespace; new_string was re-indented to match",
}

/** One matched region: [start, end) in the text, and its 1-based first and last line. */
export interface MatchRange {
  readonly start: number
  readonly end: number
  readonly startLine: number
  readonly endLine: number
}

export type MatchResult =
  | {
      readonly kind: "found"
      readonly strategy: MatchStrategy
      readonly ranges: ReadonlyArray<MatchRange>
      /** Turns new_string into the text that replaces each range (re-indentation for the looser strategies). */
      readonly adapt: (replacement: string) => string
    }
  | {
      /** More than one place matches (and replace_all was not asked for, or a fallback matched several). */
      readonly kind: "ambiguous"
      readonly strategy: MatchStrategy
      /** The first few places found. */
      readonly ranges: ReadonlyArray<MatchRange>
      /** How many places match in all. */
      readonly total: number
    }
  | { readonly kind: "none" }

/** Most places an ambiguous result lists. */
const MAX_REPORTED = 20

const identity = (s: string) => s

/** 1-based line numbers of ascending offsets, counted in one pass. */
const lineNumbers = (text: string, offsets: ReadonlyArray<number>): Array<number> => {
  const out: Array<number> = []
  let line = 1
  let pos = 0
  for (const offset of offsets) {
    for (let i = text.indexOf("\n", pos); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
      line++
      pos = i + 1
    }
    if (pos < offset) pos = offset
    out.push(line)
  }
  return out
}

const countNewlines = (s: string) => {
  let n = 0
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++
  return n
}

const exactMatches = (text: string, needle: string, all: boolean): { offsets: Array<number>; total: number } => {
  const offsets: Array<number> = []
  let total = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    total++
    if (all || offsets.length < MAX_REPORTED) offsets.push(i)
  }
  return { offsets, total }
}

const leading = (line: string): string => line.slice(0, line.length - line.trimStart().length)
const isBlank = (line: string) => line.trim() === ""
const collapse = (line: string) => line.trim().replace(/\s+/g, " ")

/**
 * How new_string's lines are re-indented to follow the file: from the pairs of
 * (file indentation, old_string indentation) of corresponding lines. A uniform
 * prefix added or removed, or tabs ↔ spaces at a fixed width, is "consistent";
 * anything else falls back to swapping the first line's indentation.
 */
interface Reindent {
  readonly consistent: boolean
  readonly apply: (line: string) => string
}

const reindenter = (pairs: ReadonlyArray<readonly [string, string]>): Reindent => {
  if (pairs.every(([f, o]) => f === o)) return { consistent: true, apply: identity }
  const [f0, o0] = pairs[0]!
  if (f0.endsWith(o0)) {
    const d = f0.slice(0, f0.length - o0.length)
    if (pairs.every(([f, o]) => f === d + o)) return { consistent: true, apply: (l) => (isBlank(l) ? l : d + l) }
  }
  if (o0.endsWith(f0)) {
    const d = o0.slice(0, o0.length - f0.length)
    if (pairs.every(([f, o]) => o === d + f)) return { consistent: true, apply: (l) => (l.startsWith(d) ? l.slice(d.length) : l) }
  }
  const tabs = (s: string) => /^\t*$/.test(s)
  const spaces = (s: string) => /^ *$/.test(s)
  if (pairs.every(([f, o]) => tabs(f) && spaces(o))) {
    const width = pairs.find(([f]) => f.length > 0)
    const r = width ? width[1].length / width[0].length : 0
    if (Number.isInteger(r) && r > 0 && pairs.every(([f, o]) => o.length === f.length * r)) {
      return {
        consistent: true,
        apply: (l) => {
          const lead = /^ */.exec(l)![0].length
          return "\t".repeat(Math.floor(lead / r)) + " ".repeat(lead % r) + l.slice(lead)
        },
      }
    }
  }
  if (pairs.every(([f, o]) => spaces(f) && tabs(o))) {
    const width = pairs.find(([, o]) => o.length > 0)
    const r = width ? width[0].length / width[1].length : 0
    if (Number.isInteger(r) && r > 0 && pairs.every(([f, o]) => f.length === o.length * r)) {
      return {
        consistent: true,
        apply: (l) => {
          const lead = /^\t*/.exec(l)![0].length
          return " ".repeat(lead * r) + l.slice(lead)
        },
      }
    }
  }
  return { consistent: false, apply: (l) => (l.startsWith(o0) ? f0 + l.slice(o0.length) : l) }
}

interface FileLines {
  readonly lines: ReadonlyArray<string>
  readonly starts: ReadonlyArray<number>
}

const splitFile = (text: string): FileLines => {
  const lines = text.split("\n")
  const starts: Array<number> = new Array(lines.length)
  let pos = 0
  for (let i = 0; i < lines.length; i++) {
    starts[i] = pos
    pos += lines[i]!.length + 1
  }
  return { lines, starts }
}

interface Needle {
  readonly lines: ReadonlyArray<string>
  /** old_string ended with a line break: the region then takes the file's line break after its last line. */
  readonly trailingNewline: boolean
  /** Index of the first non-blank line (the anchor candidates are filtered on). */
  readonly anchor: number
}

const splitNeedle = (needle: string): Needle | undefined => {
  const lines = needle.split("\n")
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === ""
  if (trailingNewline) lines.pop()
  const anchor = lines.findIndex((l) => !isBlank(l))
  return anchor === -1 ? undefined : { lines, trailingNewline, anchor }
}

interface WindowMatch {
  readonly start: number
  /** old_string's first line carried no indentation where the file's does: the region starts after it, as an exact match would. */
  readonly skipFirstIndent: boolean
  readonly reindent: Reindent
}

/** Tests one fallback at window start `s`; undefined when the lines do not correspond. */
const tryWindow = (
  strategy: Exclude<MatchStrategy, "exact">,
  file: FileLines,
  needle: Needle,
  s: number,
): WindowMatch | undefined => {
  const pairs: Array<readonly [string, string]> = []
  let skipFirstIndent = false
  for (let i = 0; i < needle.lines.length; i++) {
    const f = file.lines[s + i]!
    const o = needle.lines[i]!
    if (strategy === "line_trimmed") {
      if (f.trimEnd() !== o.trimEnd()) return undefined
      continue
    }
    const same = strategy === "indentation" ? f.trim() === o.trim() : collapse(f) === collapse(o)
    if (!same) return undefined
    if (isBlank(f)) continue
    const fi = leading(f)
    const oi = leading(o)
    if (i === 0 && oi === "" && fi !== "") {
      skipFirstIndent = true
      continue
    }
    pairs.push([fi, oi])
  }
  if (strategy === "line_trimmed") return { start: s, skipFirstIndent: false, reindent: { consistent: true, apply: identity } }
  const reindent = pairs.length === 0 ? { consistent: true, apply: identity } : reindenter(pairs)
  if (strategy === "indentation" && !reindent.consistent) return undefined
  return { start: s, skipFirstIndent, reindent }
}

const anchorKey = (strategy: Exclude<MatchStrategy, "exact">, line: string) =>
  strategy === "line_trimmed" ? line.trimEnd() : strategy === "indentation" ? line.trim() : collapse(line)

const fallback = (
  strategy: Exclude<MatchStrategy, "exact">,
  text: string,
  file: FileLines,
  needle: Needle,
): MatchResult => {
  const k = needle.lines.length
  const key = anchorKey(strategy, needle.lines[needle.anchor]!)
  // A cheap substring test first, so most lines of a big file never get normalised.
  const probe = strategy === "whitespace" ? key.slice(0, Math.max(1, key.indexOf(" "))) : key
  const found: Array<WindowMatch> = []
  for (let s = 0; s + k <= file.lines.length; s++) {
    const line = file.lines[s + needle.anchor]!
    if (!line.includes(probe) || anchorKey(strategy, line) !== key) continue
    const m = tryWindow(strategy, file, needle, s)
    if (m) found.push(m)
  }
  if (found.length === 0) return { kind: "none" }
  const toRange = (m: WindowMatch): MatchRange => {
    const lastLine = m.start + k - 1
    let end = file.starts[lastLine]! + file.lines[lastLine]!.length
    if (needle.trailingNewline && end < text.length) end++
    const start = file.starts[m.start]! + (m.skipFirstIndent ? leading(file.lines[m.start]!).length : 0)
    return { start, end, startLine: m.start + 1, endLine: lastLine + 1 }
  }
  if (found.length > 1) return { kind: "ambiguous", strategy, ranges: found.slice(0, MAX_REPORTED).map(toRange), total: found.length }
  const only = found[0]!
  const adapt = (replacement: string) => {
    const lines = replacement.split("\n")
    return lines.map((l, i) => (i === 0 && only.skipFirstIndent ? l : only.reindent.apply(l))).join("\n")
  }
  return { kind: "found", strategy, ranges: [toRange(only)], adapt }
}

/**
 * Finds old_string (`needle`) in `text`, both with LF line breaks. Exact
 * occurrences first: one, or any number with `replaceAll`. With none, the
 * fallbacks are tried in order and the first that matches decides: one place
 * is used, several are reported as ambiguous. A fallback only ever applies to
 * a single place, also with replaceAll.
 */
export const findMatches = (text: string, needle: string, options: { readonly replaceAll: boolean }): MatchResult => {
  if (needle === "") return { kind: "none" }
  const exact = exactMatches(text, needle, options.replaceAll)
  if (exact.total > 0) {
    const startLines = lineNumbers(text, exact.offsets)
    const span = countNewlines(needle)
    const ranges = exact.offsets.map((start, i) => ({
      start,
      end: start + needle.length,
      startLine: startLines[i]!,
      endLine: startLines[i]! + span - (needle.endsWith("\n") && span > 0 ? 1 : 0),
    }))
    if (exact.total === 1 || options.replaceAll) return { kind: "found", strategy: "exact", ranges, adapt: identity }
    return { kind: "ambiguous", strategy: "exact", ranges, total: exact.total }
  }
  const parsed = splitNeedle(needle)
  if (!parsed) return { kind: "none" }
  const file = splitFile(text)
  for (const strategy of FALLBACK_STRATEGIES) {
    const result = fallback(strategy, text, file, parsed)
    if (result.kind !== "none") return result
  }
  return { kind: "none" }
}
