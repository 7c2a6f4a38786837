import { isUtf8 } from "node:buffer"
import { looksBinary, type TextEncodingName } from "../workspace/text-sniff.ts"

export { looksBinary, type TextEncodingName }

/**
 * How a text file is stored on disk — byte-order mark, character encoding and
 * line endings — so an edit can decode it, change one region and encode it
 * back without touching a byte outside that region.
 */

/** Line-ending style: one kind throughout, both kinds, or no line break at all. */
export type EolStyle = "lf" | "crlf" | "mixed" | "none"

export interface TextFormat {
  readonly encoding: TextEncodingName
  /** Whether the file starts with a byte-order mark (kept on write). */
  readonly bom: boolean
  readonly eol: EolStyle
}

/** A decoded text file: its characters (without the BOM) and how to write them back. */
export interface DecodedText {
  readonly text: string
  readonly format: TextFormat
}

export type DecodeResult = { readonly ok: true; readonly value: DecodedText } | { readonly ok: false; readonly reason: string }

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>) =>
  bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b)

/** The line-ending style of a text: counts CRLF pairs against bare LFs (a lone CR is not a line break here). */
export const detectEol = (text: string): EolStyle => {
  const crlf = text.includes("\r\n")
  if (!crlf) return text.includes("\n") ? "lf" : "none"
  return /(?:^|[^\r])\n/.test(text) ? "mixed" : "crlf"
}

/** The line break to use for new text in a file of this style (mixed files: whichever occurs first). */
export const eolString = (style: EolStyle, text = ""): "\n" | "\r\n" => {
  if (style === "crlf") return "\r\n"
  if (style === "mixed") {
    const i = text.indexOf("\n")
    return i > 0 && text.charCodeAt(i - 1) === 13 ? "\r\n" : "\n"
  }
  return "\n"
}

/** Rewrites every line break (CRLF or LF) of `text` as `eol`. */
export const withEol = (text: string, eol: "\n" | "\r\n"): string => {
  const lf = text.replace(/\r\n/g, "\n")
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n")
}

const utf16le = new TextDecoder("utf-16le", { fatal: true, ignoreBOM: true })

const swapBytes = (bytes: Uint8Array): Uint8Array => {
  const out = new Uint8Array(bytes.length - (bytes.length % 2))
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out[i] = bytes[i + 1]!
    out[i + 1] = bytes[i]!
  }
  return out
}

/**
 * Decodes a file's bytes. UTF-8 (with or without BOM) and UTF-16 with a BOM
 * are decoded as such; anything else that is not binary is read as Latin-1,
 * which maps every byte to one character and so round-trips exactly. Binary
 * content is refused with a reason.
 */
export const decodeText = (bytes: Uint8Array): DecodeResult => {
  if (looksBinary(bytes)) return { ok: false, reason: "a NUL byte in its first 64 KiB" }
  let encoding: TextEncodingName = "utf-8"
  let bom = false
  let text: string
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  try {
    if (startsWith(bytes, UTF8_BOM)) {
      bom = true
      if (!isUtf8(buffer.subarray(3))) throw new Error("not UTF-8")
      text = buffer.toString("utf8", 3)
    } else if (startsWith(bytes, [0xff, 0xfe])) {
      bom = true
      encoding = "utf-16le"
      text = utf16le.decode(bytes.subarray(2))
    } else if (startsWith(bytes, [0xfe, 0xff])) {
      bom = true
      encoding = "utf-16be"
      text = utf16le.decode(swapBytes(bytes.subarray(2)))
    } else if (isUtf8(buffer)) {
      text = buffer.toString("utf8")
    } else {
      // Not UTF-8: read byte for byte, so every byte outside an edit is written back unchanged.
      encoding = "latin1"
      text = buffer.toString("latin1")
    }
  } catch {
    return { ok: false, reason: `is not valid ${encoding}` }
  }
  return { ok: true, value: { text, format: { encoding, bom, eol: detectEol(text) } } }
}

/** Whether every character of `text` can be written in `encoding` (Latin-1 holds U+0000–U+00FF only). */
export const encodable = (text: string, encoding: TextEncodingName): boolean =>
  // eslint-disable-next-line no-control-regex
  encoding !== "latin1" || !/[^\u0000-\u00ff]/.test(text)

/** Encodes text back to bytes in the given format (BOM included when the format has one). */
export const encodeText = (text: string, format: Pick<TextFormat, "encoding" | "bom">): Uint8Array => {
  switch (format.encoding) {
    case "utf-8": {
      const body = Buffer.from(text, "utf8")
      return format.bom ? Buffer.concat([Buffer.from(UTF8_BOM), body]) : body
    }
    case "latin1":
      return Buffer.from(text, "latin1")
    case "utf-16le": {
      const body = Buffer.from(text, "utf16le")
      return format.bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body
    }
    case "utf-16be": {
      const body = swapBytes(Buffer.from(text, "utf16le"))
      return format.bom ? Buffer.concat([Buffer.from([0xfe, 0xff]), body]) : body
    }
  }
}

/** A short human description: "utf-8, BOM, CRLF". */
export const describeFormat = (format: TextFormat): string =>
  [format.encoding, ...(format.bom ? ["BOM"] : []), format.eol === "none" ? "no line breaks" : `${format.eol.toUpperCase()} line endings`].join(", ")

/**
 * An LF-only view of a text for matching: every CRLF becomes LF, and offsets in
 * the view map back to offsets in the original, so a match found in the view
 * replaces exactly the right characters of the file.
 */
export interface LfView {
  readonly text: string
  /** Offset in the original text of offset `i` in the view. */
  readonly toOriginal: (i: number) => number
}

export const lfView = (original: string): LfView => {
  if (!original.includes("\r\n")) return { text: original, toOriginal: (i) => i }
  // removed[k] = view offset at which the (k+1)-th dropped CR would have stood.
  const removed: Array<number> = []
  let dropped = 0
  for (let i = original.indexOf("\r\n"); i !== -1; i = original.indexOf("\r\n", i + 2)) {
    removed.push(i - dropped)
    dropped++
  }
  const text = original.replace(/\r\n/g, "\n")
  const toOriginal = (i: number) => {
    // Count dropped CRs strictly before view offset i (a CR at view offset i belongs before the LF at i).
    let lo = 0
    let hi = removed.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (removed[mid]! < i) lo = mid + 1
      else hi = mid
    }
    return i + lo
  }
  return { text, toOriginal }
}
