/**
 * File names are bytes to git, and need not be UTF-8 (a Latin-1 "caf\351"
 * from an old system). Such a name is kept in a string the way Python's
 * "surrogateescape" keeps it: every byte that is not part of valid UTF-8
 * becomes the lone surrogate U+DC80–U+DCFF of the same low byte. Nothing
 * valid decodes to a lone surrogate, so the bytes come back exactly: git's
 * quoting prints them as git does ("caf\351.txt"), and paths sort by them.
 */

const strict = new TextDecoder("utf-8", { fatal: true })

/** The byte a string's code unit stands for when it is an escaped one (U+DC80–U+DCFF), else -1. */
export const escapedByte = (unit: number): number => (unit >= 0xdc80 && unit <= 0xdcff ? unit - 0xdc00 : -1)

/**
 * The byte the code unit at `i` of `s` stands for when it is an escaped one, else -1. The low half of a surrogate
 * pair is part of a character, not an escape: U+1F4BB (a name like `💻.txt`) is D83D DCBB in a string.
 */
export const escapedByteAt = (s: string, i: number): number => {
  const byte = escapedByte(s.charCodeAt(i))
  if (byte < 0 || i === 0) return byte
  const before = s.charCodeAt(i - 1)
  return before >= 0xd800 && before <= 0xdbff ? -1 : byte
}

/** Decodes UTF-8 with invalid bytes escaped (see above); valid input costs one strict decode. */
export const decodePath = (bytes: Uint8Array): string => {
  try {
    return strict.decode(bytes)
  } catch {
    return decodeEscaping(bytes)
  }
}

/** The length of a valid UTF-8 sequence starting at `i`, or 0 when the bytes there are not one. */
const sequence = (bytes: Uint8Array, i: number): number => {
  const b = bytes[i]!
  const cont = (k: number) => (bytes[i + k]! & 0xc0) === 0x80 && i + k < bytes.length
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0
  if (b >= 0xe0 && b <= 0xef) {
    const b1 = bytes[i + 1]!
    // No overlong forms (E0 80–9F) and no surrogates (ED A0–BF).
    if ((b === 0xe0 && b1 < 0xa0) || (b === 0xed && b1 >= 0xa0)) return 0
    return cont(1) && cont(2) ? 3 : 0
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const b1 = bytes[i + 1]!
    if ((b === 0xf0 && b1 < 0x90) || (b === 0xf4 && b1 >= 0x90)) return 0
    return cont(1) && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}

const decodeEscaping = (bytes: Uint8Array, decoder: TextDecoder = strict): string => {
  let out = ""
  let start = 0
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    const n = sequence(bytes, i)
    if (n > 0) {
      i += n
      continue
    }
    out += decoder.decode(bytes.subarray(start, i)) + String.fromCharCode(0xdc00 + b)
    i++
    start = i
  }
  return out + decoder.decode(bytes.subarray(start))
}

/** For text, not names: a U+FEFF starting a piece is a character of the text, not a byte-order mark to drop. */
const strictText = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * A piece of file text that need not be UTF-8: valid UTF-8 decoded, each other byte kept escaped as in names
 * (U+DC80–U+DCFF), so a search can tell it from a real U+FFFD and match it only where ripgrep matches the byte.
 */
export const decodeTextKeeping = (bytes: Uint8Array): string => {
  try {
    return strictText.decode(bytes)
  } catch {
    return decodeEscaping(bytes, strictText)
  }
}

/** Text from {@link decodeTextKeeping} as shown: each escaped byte as U+FFFD (a pair's half is never one: `u` flag). */
export const replacingEscapes = (text: string): string => (hasEscapedBytes(text) ? text.replace(/[\u{DC80}-\u{DCFF}]/gu, "\uFFFD") : text)

/** How many bytes ending `bytes` start a UTF-8 sequence that the next piece may complete (0 to 3). */
export const incompleteUtf8Tail = (bytes: Uint8Array): number => {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const b = bytes[bytes.length - k]!
    if ((b & 0xc0) === 0x80) continue
    const need = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
    return need > k ? k : 0
  }
  return 0
}

/** The bytes a path string stands for: UTF-8, with escaped bytes restored. */
export const encodePath = (path: string): Buffer => {
  let plain = true
  for (let i = 0; i < path.length && plain; i++) plain = escapedByteAt(path, i) < 0
  if (plain) return Buffer.from(path)
  const parts: Array<Buffer> = []
  let start = 0
  for (let i = 0; i < path.length; i++) {
    const byte = escapedByteAt(path, i)
    if (byte < 0) continue
    parts.push(Buffer.from(path.slice(start, i)), Buffer.of(byte))
    start = i + 1
  }
  parts.push(Buffer.from(path.slice(start)))
  return Buffer.concat(parts)
}

/** Whether bytes are valid UTF-8: the runtime's own check (edit/text-encoding.ts uses it too), no decode thrown away. */
export { isUtf8 } from "node:buffer"

/** Whether a path string holds escaped bytes (a name that is not UTF-8). */
export const hasEscapedBytes = (path: string): boolean => {
  for (let i = 0; i < path.length; i++) if (escapedByteAt(path, i) >= 0) return true
  return false
}

/** The path to hand the file system: its bytes when it holds escaped ones, else the string itself. */
export const fsPath = (path: string): string | Buffer => (hasEscapedBytes(path) ? encodePath(path) : path)

/** A control character (C0 or DEL), which git quotes in a name too. */
const CONTROL = /[\x00-\x1f\x7f]/

const C_ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" }

/**
 * How a path is shown to a person or a model: as it is, unless it holds bytes
 * that are not UTF-8 or a control character (a line feed or tab in a name
 * would read as two entries of a list, or as a space), or starts with a double
 * quote; then as git quotes it, in double quotes with C escapes and each such
 * byte in octal (`"caf\351.txt"`, `"new\nline.txt"`), valid characters left
 * as they are. The same string given back as a path names the same file
 * ({@link parseShownPath}).
 */
export const showPath = (path: string): string => {
  if (!path.startsWith('"') && !hasEscapedBytes(path) && !CONTROL.test(path)) return path
  let out = '"'
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    const byte = escapedByteAt(path, i)
    if (byte >= 0) out += `\\${byte.toString(8).padStart(3, "0")}`
    else if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x7f) out += C_ESCAPES[c] ?? `\\${c.toString(8).padStart(3, "0")}`
    else out += path[i]
  }
  return `${out}"`
}

const C_UNESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 }

/**
 * The bytes of a C-quoted name starting at `start` (which must be `"`), as git
 * writes names, and the index just past its closing quote; undefined when it
 * is not a well-formed quoted name.
 */
export const unquoteBytesAt = (s: string, start: number): { readonly bytes: Uint8Array; readonly end: number } | undefined => {
  if (s[start] !== '"') return undefined
  const bytes: Array<number> = []
  let i = start + 1
  while (i < s.length) {
    const c = s[i]!
    if (c === '"') return { bytes: Uint8Array.from(bytes), end: i + 1 }
    if (c === "\\") {
      const next = s[i + 1]
      if (next === undefined) return undefined
      const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))?.[0]
      if (oct !== undefined) {
        bytes.push(parseInt(oct, 8) & 0xff)
        i += 1 + oct.length
        continue
      }
      const code = C_UNESCAPES[next]
      if (code === undefined) return undefined
      bytes.push(code)
      i += 2
      continue
    }
    const cp = s.codePointAt(i)!
    const ch = String.fromCodePoint(cp)
    for (const b of encodePath(ch)) bytes.push(b)
    i += ch.length
  }
  return undefined
}

/**
 * A path as given back from what {@link showPath} printed: a whole
 * double-quoted, C-escaped name becomes the name it stands for (bytes that
 * are not UTF-8 kept escaped); anything else is the path itself.
 */
export const parseShownPath = (input: string): string => {
  if (input.length < 2 || !input.startsWith('"') || !input.endsWith('"')) return input
  const parsed = unquoteBytesAt(input, 0)
  return parsed !== undefined && parsed.end === input.length ? decodePath(parsed.bytes) : input
}

/*
 * POSIX path steps for strings that hold escaped bytes: the runtime's path
 * functions encode their input as UTF-8 and would turn each escaped byte into
 * U+FFFD. Plain strings take the runtime's functions.
 */

/** `dirname` that keeps escaped bytes. */
export const dirnameKeeping = (p: string, native: (p: string) => string): string => {
  if (!hasEscapedBytes(p)) return native(p)
  const trimmed = p.length > 1 ? p.replace(/\/+$/, "") : p
  const at = trimmed.lastIndexOf("/")
  return at === -1 ? "." : at === 0 ? "/" : trimmed.slice(0, at)
}

/** `basename` that keeps escaped bytes. */
export const basenameKeeping = (p: string, native: (p: string) => string): string => {
  if (!hasEscapedBytes(p)) return native(p)
  const trimmed = p.replace(/\/+$/, "")
  return trimmed.slice(trimmed.lastIndexOf("/") + 1)
}

/** `resolve(from, to)` (then `join`'s normalising) that keeps escaped bytes. */
export const resolveKeeping = (from: string, to: string, native: (from: string, to: string) => string): string => {
  if (!hasEscapedBytes(from) && !hasEscapedBytes(to)) return native(from, to)
  const parts: Array<string> = []
  for (const part of `${to.startsWith("/") ? "" : from}/${to}`.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") parts.pop()
    else parts.push(part)
  }
  return `/${parts.join("/")}`
}

/** `relative(from, to)` for `to` inside `from` (both absolute and normalised) that keeps escaped bytes; else the native one. */
export const relativeKeeping = (from: string, to: string, native: (from: string, to: string) => string): string => {
  if (!hasEscapedBytes(from) && !hasEscapedBytes(to)) return native(from, to)
  const top = from.endsWith("/") ? from : `${from}/`
  return to === from ? "" : to.startsWith(top) ? to.slice(top.length) : native(from, to)
}
