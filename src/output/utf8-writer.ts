import { Buffer } from "node:buffer"
import { writeSync } from "node:fs"

/** UTF-16 units encoded (or JSON-escaped) at a time. */
const PIECE = 1 << 16
/** Bytes a piece can take: at most 3 per UTF-16 unit (a pair is 4 bytes for 2 units). */
const PIECE_BYTES = 3 * PIECE

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * The end of the piece of `s` from `start`: at most PIECE units, and never
 * between the two halves of a surrogate pair (a half alone encodes, and
 * JSON-escapes, as a lone surrogate, which the whole pair does not).
 */
const pieceEnd = (s: string, start: number): number => {
  const end = Math.min(s.length, start + PIECE)
  return end < s.length && isHigh(s.charCodeAt(end - 1)) && isLow(s.charCodeAt(end)) ? end - 1 : end
}

/**
 * Writes strings to an open file as UTF-8 through one fixed buffer: a
 * multi-megabyte string is encoded piece by piece straight into it, never as a
 * second whole copy. The bytes are those of `TextEncoder.encode` (a lone
 * surrogate becomes U+FFFD). Throws what the write throws (a full disk).
 */
export class Utf8Writer {
  // Buffer.write: measured several times faster than TextEncoder.encodeInto on a cold start, most of all for Latin-1 text.
  private readonly buffer = Buffer.allocUnsafe(4 * PIECE_BYTES)
  private filled = 0

  constructor(private readonly fd: number) {}

  write(s: string): void {
    for (let at = 0; at < s.length; ) {
      const end = pieceEnd(s, at)
      if (this.buffer.length - this.filled < 3 * (end - at)) this.flush()
      this.filled += this.buffer.write(at === 0 && end === s.length ? s : s.slice(at, end), this.filled, "utf8")
      at = end
    }
  }

  /**
   * Writes `s` as a JSON string literal, exactly `JSON.stringify(s)`. With
   * `keep`, also returns the escaped pieces (between the quotes).
   */
  writeJsonString(s: string, keep = false): Array<string> | undefined {
    const kept: Array<string> | undefined = keep ? [] : undefined
    this.write('"')
    this.writeEscaped(s, kept)
    this.write('"')
    return kept
  }

  /**
   * Writes `JSON.stringify(s)` for a string that ends with one already
   * written with `keep`: only its start is escaped, then those pieces follow.
   */
  writeJsonStringEndingWith(s: string, suffixLength: number, suffix: ReadonlyArray<string>): void {
    this.write('"')
    this.writeEscaped(s.slice(0, s.length - suffixLength))
    for (const escaped of suffix) this.write(escaped)
    this.write('"')
  }

  /** Escapes `s` for JSON piece by piece (escaping is per character, and no piece splits a pair). */
  private writeEscaped(s: string, kept?: Array<string>): void {
    for (let at = 0; at < s.length; ) {
      const end = pieceEnd(s, at)
      const escaped = JSON.stringify(at === 0 && end === s.length ? s : s.slice(at, end)).slice(1, -1)
      this.write(escaped)
      kept?.push(escaped)
      at = end
    }
  }

  /** Writes out what the buffer holds. */
  flush(): void {
    for (let at = 0; at < this.filled; ) at += writeSync(this.fd, this.buffer, at, this.filled - at)
    this.filled = 0
  }
}

/** Strings at least this long are written by {@link writeJson} on their own, never inside one whole document. */
const HOIST_MIN = 1 << 15
/** How deep into plain objects long strings are looked for (an envelope's data.content is at depth 2). */
const HOIST_DEPTH = 3

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function"
}

/**
 * Writes `JSON.stringify(value, null, 2)`, byte for byte, without building it:
 * long strings in plain objects near the top (an envelope's text and
 * data.content, each possibly megabytes) are replaced by placeholders, the
 * small rest is stringified as usual, and each long string is escaped and
 * written piece by piece where its placeholder stands.
 */
export const writeJson = (out: Utf8Writer, value: unknown): void => {
  const long: Array<string> = []
  // A NUL and a random nonce: no string of the document's own can carry this placeholder.
  const nonce = crypto.randomUUID()
  const placeholder = (s: string) => `\u0000${nonce}:${long.push(s) - 1}`
  const hoist = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return v.length >= HOIST_MIN ? placeholder(v) : v
    if (depth >= HOIST_DEPTH || !isPlainObject(v)) return v
    let copy: Record<string, unknown> | undefined
    for (const key of Object.keys(v)) {
      const item = v[key]
      const replaced = hoist(item, depth + 1)
      if (replaced === item) continue
      copy ??= { ...v }
      // defineProperty: a key named __proto__ stays a plain key, in its place.
      Object.defineProperty(copy, key, { value: replaced, enumerable: true, writable: true, configurable: true })
    }
    return copy ?? v
  }
  // undefined (a value JSON has no text for) writes nothing, as TextEncoder encodes it.
  const skeleton = JSON.stringify(hoist(value, 0), null, 2) ?? ""
  if (long.length === 0) return out.write(skeleton)
  // Stringified, the placeholder reads "\u0000<nonce>:<n>" (JSON escapes NUL so).
  const marks = new RegExp(`"\\\\u0000${nonce}:(\\d+)"`, "g")
  const sources = endingSources(long)
  const needed = new Set(sources.values())
  const kept = new Map<number, ReadonlyArray<string>>()
  let at = 0
  for (const m of skeleton.matchAll(marks)) {
    out.write(skeleton.slice(at, m.index))
    const k = Number(m[1])
    const s = long[k]!
    const source = sources.get(k)
    const suffix = source === undefined ? undefined : kept.get(source)
    if (suffix !== undefined) out.writeJsonStringEndingWith(s, long[source!]!.length, suffix)
    else {
      const escaped = out.writeJsonString(s, needed.has(k))
      if (escaped !== undefined) kept.set(k, escaped)
    }
    at = m.index + m[0].length
  }
  out.write(skeleton.slice(at))
}

/**
 * For each long string that ends with an earlier one (an envelope's text ends
 * with its data.content when a tool shows its whole output), the index of
 * that earlier one: its escaped form is then written again, not escaped
 * twice. Compared by value (a substring's equality is a memory compare).
 */
const endingSources = (long: ReadonlyArray<string>): Map<number, number> => {
  const sources = new Map<number, number>()
  for (let j = 1; j < long.length; j++) {
    const a = long[j]!
    for (let i = 0; i < j; i++) {
      const b = long[i]!
      const cut = a.length - b.length
      if (cut < 0 || a.charCodeAt(a.length - 1) !== b.charCodeAt(b.length - 1) || a.slice(cut) !== b) continue
      // Escaped apart, a surrogate pair across the seam would be two lone halves.
      if (cut > 0 && isHigh(a.charCodeAt(cut - 1)) && isLow(b.charCodeAt(0))) continue
      sources.set(j, i)
      break
    }
  }
  return sources
}
