import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeMcpHub } from "../../src/mcp/mcp-hub.ts"
import { project, tempDir } from "../support/harness.ts"

// An HTTP server refused over streamable HTTP is tried over SSE: when that fails too, both answers are named
// with what to check; and a start that never ends (an SSE stream without its endpoint) meets startupTimeout.

const hubs: Array<ReturnType<typeof makeMcpHub>> = []
const servers: Array<ReturnType<typeof Bun.serve>> = []
afterAll(async () => {
  for (const h of hubs) await h.dispose()
  for (const s of servers) s.stop(true)
})

const serve = (fetch: (req: Request) => Response | Promise<Response>) => {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch })
  servers.push(server)
  return `http://127.0.0.1:${server.port}/mcp`
}

const failure = async (name: string, entry: Record<string, unknown>) => {
  const home = tempDir("anvil-mcp-fallback-")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  const settings = join(home, ".config", "anvil", "anvil.json")
  writeFileSync(settings, JSON.stringify({ mcpServers: { [name]: entry } }))
  const hub = makeMcpHub({ root: project(), env: { HOME: home, PATH: process.env.PATH } })
  hubs.push(hub)
  hub.startAll()
  await hub.settled()
  const view = hub.views()[0]!
  expect(view.status).toBe("failed")
  return { error: view.error ?? "", settings }
}

describe("the SSE fallback of streamable HTTP", () => {
  test("404 on POST, then 404 on the SSE GET: both are named, and the URL's path is the thing to check", async () => {
    const url = serve((req) => new Response(req.method === "GET" ? "Cannot GET /mcp" : "Not Found", { status: 404 }))
    const { error, settings } = await failure("web", { type: "http", url })
    expect(error).toBe(
      `cannot connect to ${url}: streamable HTTP was refused (POST answered HTTP 404: Not Found), and the SSE fallback failed too (GET answered HTTP 404). ` +
        `Next: check "url" in the settings of 'web' (${settings}): it must be the server's MCP endpoint, which servers commonly serve at /mcp (streamable HTTP) or /sse (SSE only); "type": "sse" skips the streamable HTTP attempt`,
    )
  })

  test("405 on POST, then a web page on GET: the page's content type is named beside the 405", async () => {
    const url = serve((req) => (req.method === "GET" ? new Response("<html>hi</html>", { headers: { "content-type": "text/html" } }) : new Response("use GET", { status: 405 })))
    const { error } = await failure("page", { type: "http", url })
    expect(error).toStartWith(`cannot connect to ${url}: streamable HTTP was refused (POST answered HTTP 405: use GET), and the SSE fallback failed too (GET: `)
    expect(error).toContain('expected "text/event-stream"')
    expect(error).toContain(`Next: check "url" in the settings of 'page'`)
  })

  test("a 401 on the SSE GET names credentials as the next step", async () => {
    const url = serve((req) => new Response(req.method === "GET" ? "who are you" : "Not Found", { status: req.method === "GET" ? 401 : 404 }))
    const { error } = await failure("locked", { type: "http", url })
    expect(error).toContain("(POST answered HTTP 404: Not Found), and the SSE fallback failed too (GET answered HTTP 401)")
    expect(error).toContain(`Next: the server wants credentials: set them in "headers" in the settings of 'locked'`)
  })

  test("an SSE stream that opens and never names its endpoint meets startupTimeout, as the fallback and as the chosen transport", async () => {
    const url = serve((req) => (req.method === "GET" ? new Response(new ReadableStream({ start() {} }), { headers: { "content-type": "text/event-stream" } }) : new Response("no", { status: 405 })))
    const [fallback, sse] = await Promise.all([failure("stalled", { type: "http", url, startupTimeout: 500 }), failure("stalled_sse", { type: "sse", url, startupTimeout: 500 })])
    expect(fallback.error).toContain("(POST answered HTTP 405: no), and the SSE fallback failed too (no answer to the start-up handshake within 500 ms)")
    expect(sse.error).toBe('timeout: the server did not finish the start-up handshake within 500 ms ("startupTimeout" in its settings)')
  })

  test("startupTimeout bounds the whole start: a handshake that takes most of it leaves only the rest for the tool list", async () => {
    const timeout = 1000
    // Answers initialize after 90% of the limit, then never lists its tools: each stage alone stays within the
    // limit, so a budget given to each in full would wait about 1.9 times the limit.
    const url = serve(async (req) => {
      if (req.method !== "POST") return new Response("no", { status: 405 })
      const message = (await req.json()) as { id?: number; method: string; params?: { protocolVersion?: string } }
      if (message.id === undefined) return new Response(null, { status: 202 })
      if (message.method !== "initialize") return new Promise<Response>(() => {})
      await Bun.sleep(timeout * 0.9)
      const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "slow", version: "1" } }
      return Response.json({ jsonrpc: "2.0", id: message.id, result })
    })
    const started = performance.now()
    const { error } = await failure("slow", { type: "http", url, startupTimeout: timeout })
    const elapsed = performance.now() - started
    expect(error).toBe(`timeout: the server did not finish its start-up (the handshake and its tool list) within ${timeout} ms ("startupTimeout" in its settings)`)
    // An upper bound only, with a wide margin for a loaded machine; the lower bound is the handshake's own wait.
    expect(elapsed).toBeLessThan(timeout * 1.8)
  }, 20_000)
})
