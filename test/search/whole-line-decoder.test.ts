import { describe, expect, test } from "bun:test"
import { WholeLineDecoder } from "../../src/search/whole-line-decoder.ts"

const bytes = (text: string) => new TextEncoder().encode(text)

/** Feeds `input` cut at `cuts` (byte offsets); answers each decode's text and then end()'s. */
const feed = (input: Uint8Array, cuts: ReadonlyArray<number>) => {
  const decoder = new WholeLineDecoder()
  const out: Array<string> = []
  let from = 0
  for (const cut of [...cuts, input.length]) {
    out.push(decoder.decode(input.subarray(from, cut)))
    from = cut
  }
  out.push(decoder.end())
  return out
}

describe("WholeLineDecoder: byte chunks to whole lines", () => {
  test("every way of cutting a stream into two or three chunks gives back the same text, in whole lines", () => {
    // ASCII, 2-, 3- and 4-byte characters, an empty line, CRLF, a NUL and a last line without newline.
    const text = "a.ts\u00003\nnaïve ✓ 𝄞\n\nwin\r\nlast"
    const input = bytes(text)
    for (let i = 0; i <= input.length; i++) {
      for (let j = i; j <= input.length; j++) {
        const parts = feed(input, [i, j])
        expect(parts.join("")).toBe(text)
        // Each decode answers whole lines only; the unfinished last line comes from end().
        for (const p of parts.slice(0, -1)) expect(p === "" || p.endsWith("\n")).toBe(true)
        expect(parts.at(-1)).toBe("last")
      }
    }
  })

  test("a chunk that ends exactly on a newline leaves nothing behind", () => {
    const decoder = new WholeLineDecoder()
    expect(decoder.decode(bytes("one\ntwo\n"))).toBe("one\ntwo\n")
    expect(decoder.end()).toBe("")
  })

  test("a multi-byte character split across chunks is not replaced", () => {
    const input = bytes("€\n") // e2 82 ac 0a
    const decoder = new WholeLineDecoder()
    expect(decoder.decode(input.subarray(0, 1))).toBe("")
    expect(decoder.decode(input.subarray(1, 2))).toBe("")
    expect(decoder.decode(input.subarray(2))).toBe("€\n")
  })

  test("a long line spread over many chunks arrives whole, once", () => {
    const line = "x".repeat(10_000)
    const input = bytes(`${line}\nnext\n`)
    const decoder = new WholeLineDecoder()
    const out: Array<string> = []
    for (let at = 0; at < input.length; at += 7) out.push(decoder.decode(input.subarray(at, at + 7)))
    expect(out.filter((t) => t !== "")).toEqual([`${line}\n`, "next\n"])
  })

  test("empty chunks and an empty stream answer nothing", () => {
    const decoder = new WholeLineDecoder()
    expect(decoder.decode(new Uint8Array(0))).toBe("")
    expect(decoder.end()).toBe("")
  })

  test("the producer may reuse its buffer after decode returns", () => {
    const buffer = new Uint8Array(8)
    const decoder = new WholeLineDecoder()
    buffer.set(bytes("ab\ncd"))
    expect(decoder.decode(buffer.subarray(0, 5))).toBe("ab\n")
    buffer.set(bytes("XXXXX"))
    buffer.set(bytes("e\n"))
    expect(decoder.decode(buffer.subarray(0, 2))).toBe("cde\n")
  })

  test("a byte-order mark or invalid UTF-8 is decoded as it stands, not dropped", () => {
    const decoder = new WholeLineDecoder()
    expect(decoder.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a]))).toBe("\ufeffa\n")
    expect(decoder.decode(new Uint8Array([0xff, 0x62, 0x0a]))).toBe("\ufffdb\n")
    expect(decoder.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x0a]))).toBe("\ufeff\n")
  })
})
