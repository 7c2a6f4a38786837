import { escapedByte } from "../workspace/path-bytes.ts"

const ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" }

/** Whether `path` is printable ASCII without a quote or a backslash (nor a space, when spaces are quoted): printed as it is. */
const isBare = (path: string, quoteSpace: boolean): boolean => {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c || (quoteSpace && c === 0x20)) return false
  }
  return true
}

const octal = (byte: number): string => `\\${byte.toString(8).padStart(3, "0")}`

/** The UTF-8 bytes of code point `cp` (beyond ASCII), each as an octal escape. */
const octalUtf8 = (cp: number): string =>
  cp < 0x800
    ? octal(0xc0 | (cp >> 6)) + octal(0x80 | (cp & 0x3f))
    : cp < 0x10000
      ? octal(0xe0 | (cp >> 12)) + octal(0x80 | ((cp >> 6) & 0x3f)) + octal(0x80 | (cp & 0x3f))
      : octal(0xf0 | (cp >> 18)) + octal(0x80 | ((cp >> 12) & 0x3f)) + octal(0x80 | ((cp >> 6) & 0x3f)) + octal(0x80 | (cp & 0x3f))

/**
 * A path as git prints it (quote_c_style with core.quotePath on): left bare
 * unless it holds a quote, a backslash, a control character or a non-ASCII
 * byte — or, for porcelain output, a space — and then double-quoted with C
 * escapes and octal bytes ("n\303\253w.txt"). A space inside quotes stays
 * as it is. A byte kept escaped from a name that is not UTF-8 (see
 * path-bytes.ts) is printed as that byte. Works on the string's code units (no encoding to bytes): status
 * prints thousands of paths.
 */
export const quotePath = (path: string, options: { readonly quoteSpace?: boolean } = {}): string => {
  if (isBare(path, options.quoteSpace === true)) return path
  let out = '"'
  let plain = 0
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue
    out += path.slice(plain, i)
    if (c < 0x80) out += ESCAPES[c] ?? octal(c)
    else if (c < 0xd800 || c > 0xdfff) out += octalUtf8(c)
    else if (escapedByte(c) >= 0) out += octal(escapedByte(c))
    else {
      const low = path.charCodeAt(i + 1)
      // A surrogate pair is one code point; another lone surrogate is encoded as U+FFFD, as TextEncoder does.
      if (c < 0xdc00 && low >= 0xdc00 && low <= 0xdfff) {
        out += octalUtf8(0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00))
        i++
      } else out += octalUtf8(0xfffd)
    }
    plain = i + 1
  }
  return `${out}${path.slice(plain)}"`
}
