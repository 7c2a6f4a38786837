import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"

/**
 * fetch keeps its text within what the output layer keeps of a result (output.max_bytes, output.max_lines), so a long
 * page is cut once, by fetch, whose saved whole and Read hint go on right after the last line shown. Its default
 * max_size_kb (100 before) was above the 50 KB the output layer keeps: the page was cut twice, the text said "first
 * 100 KB shown" over 50 KB, and the Read of the saved whole started past lines never shown.
 */

// 200 KB in 40-byte lines, and 3,000 lines of 2 bytes.
const LONG = Array.from({ length: 5000 }, (_, i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(28)}`).join("\n") + "\n"
const MANY = "y\n".repeat(3000)

let server: ReturnType<typeof Bun.serve>
let base = ""
beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(new URL(req.url).pathname === "/many" ? MANY : LONG, { headers: { "content-type": "text/plain" } }),
  })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(() => server.stop(true))

const readHint = (text: string) => text.match(/\* Read\(path="([^"]+)", offset=(\d+), limit=\d+\)/)

describe("fetch's text fits the output budget: cut once, and the rest named from the first line not shown", () => {
  test("default: 45 KB shown, no second cut by the output layer, the saved whole read on from the next line", async () => {
    const root = project({})
    const { envelope } = await callTool(root, "fetch", { url: `${base}/long` })
    expect(envelope.status).toBe("partial")
    expect(envelope.text).not.toContain("Output too large")
    expect(envelope.data.truncation).toBeUndefined()
    expect(envelope.text).toContain(`Content: TEXT (TRUNCATED: first 45 KB of ${LONG.length} bytes shown)`)
    const shown = String(envelope.data.content)
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(45 * 1024)
    const hint = readHint(envelope.text)
    expect(readFileSync(join(root, hint![1]!), "utf8")).toBe(LONG)
    // The hint goes on at the first line the text did not show whole.
    expect(Number(hint![2])).toBe(shown.split("\n").length - 1)
    expect(LONG.startsWith(shown)).toBe(true)
  })

  test("a larger max_size_kb is held to the budget; a smaller output budget lowers it; many short lines are cut by lines", async () => {
    const root = project({})
    const asked = (await callTool(root, "fetch", { url: `${base}/long`, max_size_kb: 500 })).envelope
    expect(asked.text).toContain("first 45 KB of")
    expect(asked.text).not.toContain("Output too large")
    const small = (await callTool(root, "fetch", { url: `${base}/long` }, { configOverrides: { output: { max_bytes: 20480 } } })).envelope
    expect(small.text).toContain("first 15 KB of")
    expect(small.text).not.toContain("Output too large")
    const many = (await callTool(root, "fetch", { url: `${base}/many` })).envelope
    expect(many.status).toBe("partial")
    expect(many.text).toContain("first 1950 lines of 6000 bytes shown")
    expect(many.text).not.toContain("Output too large")
    expect(Number(readHint(many.text)![2])).toBe(1950)
  })

  test("a prompt above the page takes its room from the page's: the whole text stays within the budget, cut once; a long prompt is cut", async () => {
    const root = project({})
    for (const prompt of ["What does line 3 say?", "q".repeat(20_000), "a\n".repeat(1500)]) {
      const { envelope } = await callTool(root, "fetch", { url: `${base}/long`, prompt })
      expect(envelope.status).toBe("partial")
      // Cut by fetch (data.content, data.truncated), never again by the output layer (data.truncation).
      expect(envelope.text).not.toContain("Output too large")
      expect(envelope.data.truncation).toBeUndefined()
      expect(envelope.data.truncated).toBe(true)
      expect(Buffer.byteLength(envelope.text)).toBeLessThanOrEqual(50 * 1024)
      expect(envelope.text.split("\n").length).toBeLessThanOrEqual(2000)
      expect(String(envelope.data.prompt).length).toBeLessThanOrEqual(2001)
      expect(envelope.text).toContain("Prompt: ")
      const hint = readHint(envelope.text)
      expect(Number(hint![2])).toBe(String(envelope.data.content).split("\n").length - 1)
    }
    const long = (await callTool(root, "fetch", { url: `${base}/long`, prompt: "q".repeat(20_000) })).envelope
    expect(long.text).toContain("(its first 2000 of 20000 characters)")
    expect(long.data.prompt_chars).toBe(20_000)
    const short = (await callTool(root, "fetch", { url: `${base}/long`, prompt: "What does line 3 say?" })).envelope
    expect(short.data.prompt).toBe("What does line 3 say?")
    expect(short.data).not.toHaveProperty("prompt_chars")
  })
})
