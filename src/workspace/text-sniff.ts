/**
 * What the first block of a file says about it: binary or text, which
 * encoding, whether it starts with a byte-order mark. Judged on a sample, so
 * a reader never has to load a file to decide how to read it.
 */

/** The encodings a text file is read in. `latin1` is the byte-faithful reading of a file that is not valid UTF-8. */
export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "latin1"

/** Bytes inspected at the start of a file for its encoding and line endings. */
export const SNIFF_BYTES = 8192

export interface Sniffed {
  readonly binary: boolean
  readonly encoding: TextEncodingName
  /** Length of the byte-order mark (0 when none). */
  readonly bomLength: number
}

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>) =>
  bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b)

/**
 * Bytes a binary file is recognised in: ripgrep's read buffer. ripgrep skips
 * a file whose first buffer holds a NUL byte and stops searching one at the
 * buffer where a later NUL turns up; read, edit and patch refuse the first
 * kind and read the second as text.
 */
export const BINARY_SNIFF_BYTES = 64 * 1024

/**
 * The offset of the first NUL at or after `from` (in UTF-16 with a byte-order
 * mark, of the first U+0000 code unit: ripgrep transcodes such a file before
 * it looks), or -1. Offsets count from the file's start, BOM included.
 */
export const nulOffset = (bytes: Uint8Array, from = 0, end = bytes.length): number => {
  const utf16 = startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])
  if (!utf16) {
    const at = bytes.subarray(0, end).indexOf(0, from)
    return at
  }
  for (let i = Math.max(2, from + (from % 2)); i + 1 < end; i += 2) if (bytes[i] === 0 && bytes[i + 1] === 0) return i
  return -1
}

/**
 * Whether a file is binary, judged on its first bytes (at least the first
 * {@link BINARY_SNIFF_BYTES} when it is that long): a NUL byte there, as
 * ripgrep decides. Control characters other than NUL are text (ripgrep
 * searches them), and so is UTF-16 with a byte-order mark unless it holds
 * U+0000. The one rule read, edit, patch and grep (rg, the in-process search,
 * a single file's check) judge files by.
 */
export const looksBinary = (bytes: Uint8Array): boolean => nulOffset(bytes, 0, Math.min(bytes.length, BINARY_SNIFF_BYTES)) !== -1

/**
 * Whether `bytes` are valid UTF-8. With `partialEnd`, a sequence cut off by
 * the end of the sample is accepted (the sample ends mid-character).
 */
export const isValidUtf8 = (bytes: Uint8Array, partialEnd = false): boolean => {
  const n = bytes.length
  let i = 0
  while (i < n) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    let need: number
    let min: number
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1
      min = 0x80
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      min = 0x800
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      min = 0x10000
    } else return false
    if (i + need >= n) return partialEnd
    let cp = b & (0x3f >> need)
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!
      if ((c & 0xc0) !== 0x80) return false
      cp = (cp << 6) | (c & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false
    i += need + 1
  }
  return true
}

/**
 * Classifies a file from its first bytes. `whole` says the sample is the whole
 * file (so a multi-byte character cut at the sample's end is an error, not a
 * boundary).
 */
export const sniffText = (sample: Uint8Array, whole: boolean): Sniffed => {
  const binary = looksBinary(sample)
  if (startsWith(sample, [0xef, 0xbb, 0xbf])) return { binary, encoding: "utf-8", bomLength: 3 }
  if (startsWith(sample, [0xff, 0xfe])) return { binary, encoding: "utf-16le", bomLength: 2 }
  if (startsWith(sample, [0xfe, 0xff])) return { binary, encoding: "utf-16be", bomLength: 2 }
  if (binary) return { binary, encoding: "utf-8", bomLength: 0 }
  return { binary: false, encoding: isValidUtf8(sample, !whole) ? "utf-8" : "latin1", bomLength: 0 }
}

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })

/** Decodes bytes read in `encoding` (UTF-16 sources are converted to UTF-8 before line splitting). */
export const decodeBytes = (bytes: Uint8Array, encoding: TextEncodingName): string =>
  encoding === "latin1" ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1") : utf8.decode(bytes)

/** Decodes a whole UTF-16 file body (after its BOM) to a string. */
export const decodeUtf16 = (bytes: Uint8Array, encoding: "utf-16le" | "utf-16be"): string => {
  if (encoding === "utf-16le") return new TextDecoder("utf-16le", { ignoreBOM: true }).decode(bytes)
  const swapped = new Uint8Array(bytes.length - (bytes.length % 2))
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    swapped[i] = bytes[i + 1]!
    swapped[i + 1] = bytes[i]!
  }
  return new TextDecoder("utf-16le", { ignoreBOM: true }).decode(swapped)
}
