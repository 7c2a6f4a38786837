import { afterAll, describe, expect, test } from "bun:test"
import { runBinary } from "../support/binary.ts"
import { binaryRepo } from "../support/binary-repo.ts"

// "café naïve" in Latin-1: é and ï are single bytes that are not UTF-8.
const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65])
const pages: Record<string, [string, Uint8Array]> = {
  "/plain": ["text/plain", LATIN1],
  "/unknown": ["text/plain; charset=no-such-charset", LATIN1],
  "/html": ["text/html", new Uint8Array([...new TextEncoder().encode("<html><body><p>"), ...LATIN1, ...new TextEncoder().encode("</p></body></html>")])],
  "/declared": ["text/plain; charset=iso-8859-1", LATIN1],
  "/utf8": ["text/plain", new TextEncoder().encode("café naïve")],
  "/error": ["text/plain", LATIN1],
}
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    const path = new URL(req.url).pathname
    const [type, body] = pages[path] ?? ["text/plain", new Uint8Array()]
    return new Response(body, { status: path === "/error" ? 500 : 200, headers: { "Content-Type": type } })
  },
})
afterAll(() => server.stop(true))

const fetchPage = async (path: string) => {
  const r = binaryRepo({})
  const out = await runBinary(["tool", "fetch", JSON.stringify({ url: `http://127.0.0.1:${server.port}${path}` })], { cwd: r.root, env: r.env })
  return JSON.parse(out.stdout)
}

describe("fetch reads a body in no declared encoding as a browser does, never as U+FFFD (binary)", () => {
  test("not UTF-8 and no charset (text, HTML) or an unknown one: read as windows-1252, and the text says so", async () => {
    for (const [path, why] of [["/plain", "no charset declared"], ["/html", "no charset declared"], ["/unknown", 'charset "no-such-charset" unknown']] as const) {
      const envelope = await fetchPage(path)
      expect(envelope.status).toBe("success")
      expect(envelope.data.content).toContain("café naïve")
      expect(envelope.data.content).not.toContain("\uFFFD")
      expect(envelope.data).toMatchObject({ charset: "windows-1252", charset_guessed: `not UTF-8, and ${why}` })
      expect(envelope.text).toContain(`; read as windows-1252 (not UTF-8, and ${why})`)
    }
  })

  test("a declared charset is read as declared and named; UTF-8 without a declaration stays as it was", async () => {
    const declared = await fetchPage("/declared")
    expect(declared.data.content).toBe("café naïve")
    expect(declared.data.charset).toBe("windows-1252")
    expect(declared.data.charset_guessed).toBeUndefined()
    const utf8 = await fetchPage("/utf8")
    expect(utf8.data.content).toBe("café naïve")
    expect(utf8.data.charset).toBeUndefined()
    expect(utf8.text).not.toContain("read as")
  })

  test("an HTTP error's answer quoted in the message is read the same way", async () => {
    const envelope = await fetchPage("/error")
    expect(envelope.error.code).toBe("EXECUTION_ERROR")
    expect(envelope.error.message).toContain("café naïve")
  })
})
