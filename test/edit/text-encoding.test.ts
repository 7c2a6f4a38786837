import { describe, expect, test } from "bun:test"
import { decodeText, detectEol, encodeText, lfView, looksBinary, withEol } from "../../src/edit/text-encoding.ts"

describe("text-encoding", () => {
  test("line-ending styles", () => {
    expect(detectEol("a\nb\n")).toBe("lf")
    expect(detectEol("a\r\nb\r\n")).toBe("crlf")
    expect(detectEol("a\r\nb\n")).toBe("mixed")
    expect(detectEol("one line")).toBe("none")
    expect(detectEol("old mac\rstyle")).toBe("none")
  })

  test("withEol rewrites every break", () => {
    expect(withEol("a\r\nb\nc", "\r\n")).toBe("a\r\nb\r\nc")
    expect(withEol("a\r\nb\nc", "\n")).toBe("a\nb\nc")
  })

  test("decode/encode round-trips every supported format byte for byte", () => {
    const samples = [
      Buffer.from("plain ascii\n"),
      Buffer.from("utf-8 ✓ naïve\r\n"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom\n")]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("utf16 ✓\r\n", "utf16le")]),
      Buffer.from([0xfe, 0xff, 0x00, 0x41, 0x00, 0x0a]),
      Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff]),
      Buffer.alloc(0),
    ]
    for (const bytes of samples) {
      const decoded = decodeText(bytes)
      if (!decoded.ok) throw new Error(decoded.reason)
      expect(Buffer.from(encodeText(decoded.value.text, decoded.value.format))).toEqual(bytes)
    }
  })

  test("formats are reported; the BOM is not part of the text", () => {
    const bom = decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("x\r\n")]))
    expect(bom.ok && bom.value).toEqual({ text: "x\r\n", format: { encoding: "utf-8", bom: true, eol: "crlf" } })
    const be = decodeText(Buffer.from([0xfe, 0xff, 0x00, 0x41]))
    expect(be.ok && be.value.text).toBe("A")
    const latin = decodeText(Buffer.from([0xe9]))
    expect(latin.ok && latin.value).toEqual({ text: "é", format: { encoding: "latin1", bom: false, eol: "none" } })
  })

  test("binary: a NUL byte in the first 64 KiB, as ripgrep decides; control characters and UTF-16 with a BOM are text", () => {
    expect(looksBinary(Buffer.from([0x41, 0x00, 0x42]))).toBe(true)
    expect(looksBinary(Buffer.from([1, 2, 3, 4, 5, 0x41]))).toBe(false)
    expect(looksBinary(Buffer.concat([Buffer.alloc(64 * 1024 - 1, 0x61), Buffer.from([0])]))).toBe(true)
    expect(looksBinary(Buffer.concat([Buffer.alloc(64 * 1024, 0x61), Buffer.from([0])]))).toBe(false)
    expect(looksBinary(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\0b", "utf16le")]))).toBe(true)
    expect(looksBinary(Buffer.from("text\twith\ttabs\n"))).toBe(false)
    expect(looksBinary(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a", "utf16le")]))).toBe(false)
    expect(decodeText(Buffer.from([0, 1, 2])).ok).toBe(false)
  })

  test("lfView maps offsets in the LF view back to the original", () => {
    const original = "ab\r\ncd\r\n\r\nef"
    const view = lfView(original)
    expect(view.text).toBe("ab\ncd\n\nef")
    // Every character of the view is the same character in the original (a view LF is the original CR+LF pair's start).
    for (let i = 0; i <= view.text.length; i++) {
      const o = view.toOriginal(i)
      if (i < view.text.length && view.text[i] !== "\n") expect(original[o]).toBe(view.text[i]!)
      if (i < view.text.length && view.text[i] === "\n") expect(original.slice(o, o + 2)).toBe("\r\n")
    }
    expect(view.toOriginal(view.text.length)).toBe(original.length)
  })
})
