import { describe, expect, test } from "bun:test"
import { LspFrameFilter } from "../../src/lsp/frame-filter.ts"

const frame = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

/** Feeds `input` in pieces of `step` bytes; returns the frames' bytes joined and what was set aside. */
const run = (input: string, step: number) => {
  const junk: Array<string> = []
  const filter = new LspFrameFilter((t) => junk.push(t))
  const bytes = Buffer.from(input)
  const out: Array<Buffer> = []
  for (let i = 0; i < bytes.length; i += step) out.push(...filter.push(bytes.subarray(i, i + step)))
  return { frames: Buffer.concat(out).toString(), junk }
}

describe("LSP frame filter", () => {
  test("frames pass unchanged, in any chunking; log lines before, between and glued to a header are set aside", () => {
    const a = frame('{"id":1,"result":"é😀"}')
    const b = frame('{"id":2,"result":null}')
    const typed = `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n${frame("{}")}`
    for (const step of [1, 3, 7, 1000]) {
      expect(run(a + b + typed, step)).toEqual({ frames: a + b + typed.replace(/^(Content-Type[^\r]*)\r\n(Content-Length: 2)/, "$2\r\n$1"), junk: [] })
      const noisy = run(`banner v1\n${a}INFO: blank after\r\n\r\nDEBUG: glued ${b}`, step)
      expect(noisy.frames).toBe(a + b)
      expect(noisy.junk.join("|")).toBe("banner v1|INFO: blank after|DEBUG: glued ")
    }
    // An endless log with no frame end is dropped past its bound rather than kept.
    const flood = run("x".repeat(70 * 1024), 4096)
    expect([flood.frames, flood.junk.length]).toEqual(["", 1])
  })
})
