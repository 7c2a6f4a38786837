import { describe, expect, test } from "bun:test"
import { quotePath } from "../../src/git/quote-path.ts"
import { compareBytes, sortByPath } from "../../src/git/tree-states.ts"

// Characters on every side of the boundaries the code-unit shortcuts rely on: ASCII specials, the top of
// ASCII, two- and three-byte UTF-8, U+E000–U+FFFF (above the surrogates in UTF-16), astral pairs and lone surrogates.
const POOL = ["a", "Z", " ", '"', "\\", "\t", "\n", "\x01", "\x7f", "é", "ñ", "ÿ", "ā", "中", "\ue000", "\uffff", "\u{1F600}", "\u{10FFFF}", "\ud800", "\udc00", "/", "~"]
const encoder = new TextEncoder()

/** Random strings from POOL, the same ones on every run (a fixed linear congruential sequence). */
const samples = (count: number): Array<string> => {
  let seed = 12345
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
  return Array.from({ length: count }, () => Array.from({ length: 1 + (next() % 6) }, () => POOL[next() % POOL.length]).join(""))
}

/** git's quote_c_style over the UTF-8 bytes, written the plain way: the definition quotePath must agree with. */
const referenceQuote = (path: string, quoteSpace: boolean): string => {
  const bytes = encoder.encode(path)
  const special = (b: number) => b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x7f || (quoteSpace && b === 0x20)
  if (!bytes.some(special)) return path
  const escapes: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" }
  let out = '"'
  let plain: Array<number> = []
  const flush = () => {
    out += new TextDecoder().decode(new Uint8Array(plain))
    plain = []
  }
  for (const b of bytes) {
    if (b === 0x20 || !special(b)) plain.push(b)
    else {
      flush()
      out += escapes[b] ?? `\\${b.toString(8).padStart(3, "0")}`
    }
  }
  flush()
  return `${out}"`
}

describe("git path order and quoting on code units", () => {
  test("compareBytes orders as the UTF-8 bytes do (Buffer.compare), astral characters and lone surrogates included", () => {
    const all = samples(3000)
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!]
      expect([a, b, Math.sign(compareBytes(a, b))]).toEqual([a, b, Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))])
    }
    const sorted = sortByPath([...all], (s) => s)
    expect(sorted.map((s) => Buffer.from(s).toString("hex"))).toEqual(all.map((s) => Buffer.from(s)).sort(Buffer.compare).map((b) => b.toString("hex")))
    // Already in order: handed back untouched.
    expect(sortByPath(sorted, (s) => s)).toBe(sorted)
  })

  test("quotePath agrees with quote_c_style over the UTF-8 bytes, with and without quoted spaces", () => {
    for (const path of samples(5000)) {
      for (const quoteSpace of [false, true]) expect([path, quotePath(path, { quoteSpace })]).toEqual([path, referenceQuote(path, quoteSpace)])
    }
  })
})
