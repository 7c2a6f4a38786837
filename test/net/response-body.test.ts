import { describe, expect, test } from "bun:test"
import { renderText } from "../../src/net/response-body.ts"

const bytes = (...parts: Array<string | Array<number>>): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)))

const render = (body: Uint8Array, kind: "html" | "json" | "text", contentType: string | null) =>
  renderText(body, kind, contentType, "http://127.0.0.1/", 100_000, true).content

describe("response body: the encoding a page declares", () => {
  test("an HTML <meta charset> is honoured when the Content-Type names none", () => {
    const page = bytes('<html><head><meta charset="windows-1252"></head><body><p>caf', [0xe9, 0x20, 0x80], "</p></body></html>")
    expect(render(page, "html", "text/html")).toBe("café €")
  })

  test("an http-equiv Content-Type meta counts too, and the header's charset wins over the page's", () => {
    const legacy = bytes('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>na', [0xef], "ve</p></body></html>")
    expect(render(legacy, "html", "text/html")).toBe("naïve")
    const utf8 = bytes('<html><head><meta charset="iso-8859-1"></head><body><p>caf', [0xc3, 0xa9], "</p></body></html>")
    expect(render(utf8, "html", "text/html; charset=utf-8")).toBe("café")
  })

  test("a byte-order mark wins over every declaration; an XML declaration names the encoding of XML", () => {
    expect(render(bytes([0xff, 0xfe], [0x68, 0, 0xe9, 0]), "text", "text/plain; charset=iso-8859-1")).toBe("hé")
    expect(render(bytes('<?xml version="1.0" encoding="ISO-8859-1"?><a>', [0xe9], "</a>"), "text", "application/xml")).toBe('<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>')
  })

  test("without any declaration the body is UTF-8; an unknown label falls back to UTF-8", () => {
    expect(render(bytes("<p>", [0xc3, 0xa9], "</p>"), "html", "text/html")).toBe("é")
    expect(render(bytes("x", [0xc3, 0xa9]), "text", "text/plain; charset=no-such-charset")).toBe("xé")
  })
})
