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

const decodeEscaping = (bytes: Uint8Array): string => {
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
    out += strict.decode(bytes.subarray(start, i)) + String.fromCharCode(0xdc00 + b)
    i++
    start = i
  }
  return out + strict.decode(bytes.subarray(start))
}

/** The bytes a path string stands for: UTF-8, with escaped bytes restored. */
export const encodePath = (path: string): Buffer => {
  let plain = true
  for (let i = 0; i < path.length && plain; i++) plain = escapedByte(path.charCodeAt(i)) < 0
  if (plain) return Buffer.from(path)
  const parts: Array<Buffer> = []
  let start = 0
  for (let i = 0; i < path.length; i++) {
    const byte = escapedByte(path.charCodeAt(i))
    if (byte < 0) continue
    parts.push(Buffer.from(path.slice(start, i)), Buffer.of(byte))
    start = i + 1
  }
  parts.push(Buffer.from(path.slice(start)))
  return Buffer.concat(parts)
}

/** Whether bytes are valid UTF-8. */
export const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    strict.decode(bytes)
    return true
  } catch {
    return false
  }
}
