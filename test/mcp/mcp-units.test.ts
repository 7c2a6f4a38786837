import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeMcpHub, type McpEvent } from "../../src/mcp/mcp-hub.ts"
import { mcpHumanLine } from "../../src/cli/mcp-events.ts"
import { streamableServer } from "./http-servers.ts"
import { toolNameOf } from "../../src/mcp/tool-name.ts"
import { contentProblem, mapToolResult } from "../../src/mcp/result-content.ts"
import { maskSecrets, serverSpec } from "../../src/mcp/server-config.ts"
import { pluginServerSources, serverSpecs, standardSources } from "../../src/mcp/server-sources.ts"
import { makeRegistry } from "../../src/tool-framework/registry.ts"
import { callTool, builtinTools, project, tempDir } from "../support/harness.ts"

const TINY = join(import.meta.dir, "tiny-server.ts")
const where = { source: "/p/anvil.json", scope: "project" as const, root: "/p" }
const resolvePath = (base: string, p: string) => (p.startsWith("/") ? p : `${base}/${p}`)

describe("server definitions", () => {
  test("stdio and HTTP entries; ${VAR} and ${VAR:-default} in command, args, env, cwd, url and headers; secrets masked", () => {
    const env = { TOKEN: "tok-12345", DIR: "data", HOME: "/home/u" }
    const stdio = serverSpec("s", { command: "srv", args: ["--dir", "${HOME}/${DIR}", "${LEVEL:-warn}"], env: { KEY: "${TOKEN}" }, cwd: "${DIR}" }, where, env, resolvePath)
    expect(stdio.problem).toBeUndefined()
    expect(stdio.transport).toEqual({ kind: "stdio", command: "srv", args: ["--dir", "/home/u/data", "warn"], env: { KEY: "tok-12345" }, cwd: "/p/data" })
    expect(stdio.timeoutMs).toBe(600_000)
    expect(stdio.startupTimeoutMs).toBe(30_000)
    expect(stdio.permission).toBe("ask")
    expect(maskSecrets("key tok-12345 used", stdio.secrets)).toBe("key [REDACTED] used")

    const http = serverSpec("h", { url: "https://x.example/${DIR}", headers: { Authorization: "Bearer ${TOKEN}" }, timeout: 5000 }, where, env, resolvePath)
    expect(http.transport).toEqual({ kind: "http", url: "https://x.example/data", headers: { Authorization: "Bearer tok-12345" } })
    expect(http.timeoutMs).toBe(5000)
    expect(serverSpec("e", { type: "sse", url: "http://h/sse" }, where, env, resolvePath).transport.kind).toBe("sse")
    const fromEnv = serverSpec("v", { command: "x" }, where, { MCP_TOOL_TIMEOUT: "9000", MCP_TIMEOUT: "700" }, resolvePath)
    expect([fromEnv.timeoutMs, fromEnv.startupTimeoutMs]).toEqual([9000, 700])
    expect(serverSpec("e", { type: "streamable-http", url: "http://h/" }, where, env, resolvePath).transport.kind).toBe("http")
  })

  test("unusable entries say why: a missing variable, no command, no url, a bad url, a wrong type", () => {
    expect(serverSpec("a", { command: "x", args: ["${NOPE}"] }, where, {}, resolvePath).problem).toContain("NOPE not set")
    expect(serverSpec("b", { args: ["x"] }, where, {}, resolvePath).problem).toContain('no "command"')
    expect(serverSpec("c", { type: "http" }, where, {}, resolvePath).problem).toContain('no "url"')
    expect(serverSpec("d", { url: "not a url" }, where, {}, resolvePath).problem).toContain("not a valid URL")
    expect(serverSpec("d", { url: "ftp://files.example/mcp" }, where, {}, resolvePath).problem).toBe(`"url" must be an http:// or https:// URL, not ftp://…`)
    expect(serverSpec("e", { command: 42 }, where, {}, resolvePath).problem).toBe(
      `invalid entry: 'mcpServers.e.command' is 42: expected string (fix it in ${where.source}, or set "enabled": false)`,
    )
    expect(serverSpec("g", "npx server", where, {}, resolvePath).problem).toStartWith(`invalid entry: 'mcpServers.g' is "npx server": expected object`)
    expect(serverSpec("h", { type: "htp", url: "http://x", timeout: "fast" }, where, {}, resolvePath).problem).toStartWith(
      `invalid entry: 'mcpServers.h.type' is "htp": expected "stdio" | "http" | "sse" | "streamable-http"; 'mcpServers.h.timeout' is "fast": expected number`,
    )
    // A deadline of 0 or less is refused as a word is, not taken silently for the default.
    for (const [key, value] of [["timeout", 0], ["timeout", -1], ["startupTimeout", 0], ["startupTimeout", -5]] as const) {
      expect(serverSpec("t", { command: "x", [key]: value }, where, {}, resolvePath).problem).toBe(
        `invalid entry: 'mcpServers.t.${key}' is ${value}: expected a value greater than or equal to 1 (fix it in ${where.source}, or set "enabled": false)`,
      )
    }
    expect(serverSpec("t", { command: "x", timeout: 1 }, where, {}, resolvePath)).toMatchObject({ timeoutMs: 1 })
    expect(serverSpec("f", { command: "x", enabled: false }, where, {}, resolvePath).enabled).toBe(false)
  })

  test(".mcp.json without mcpServers is a problem that says so (VS Code's \"servers\" named); anvil.json without it is not", () => {
    const root = project({ ".mcp.json": JSON.stringify({ servers: { a: { command: "x" } } }), "anvil.json": "{}" })
    const { sources, problems } = standardSources(root, { HOME: tempDir("anvil-mcp-home-") })
    expect(sources).toEqual([])
    expect(problems).toEqual([
      { source: join(root, ".mcp.json"), message: 'has no "mcpServers" object, so it defines no server (it has "servers", as VS Code writes them: rename the key to "mcpServers")' },
    ])
  })

  test("later sources win by name; plugin servers are named plugin_<plugin>_<server> and come trusted", () => {
    const specs = serverSpecs(
      [
        { source: "user", scope: "user", servers: { a: { command: "one" }, b: { command: "b" } } },
        { source: "project", scope: "project", servers: { a: { command: "two" } } },
        ...pluginServerSources([{ plugin: "kit", name: "db", config: { command: "db" } }]),
      ],
      "/p",
      {},
    )
    expect(specs.map((s) => [s.name, s.scope, s.transport.kind === "stdio" ? s.transport.command : ""])).toEqual([
      ["a", "project", "two"],
      ["b", "user", "b"],
      ["plugin_kit_db", "plugin", "db"],
    ])
    expect(specs[2]!.pretrusted).toBe(true)
  })
})

describe("tool names and results", () => {
  test("names follow the model APIs' rules: [A-Za-z0-9_-], at most 64 characters, distinct", () => {
    expect(toolNameOf("my server", "read.file")).toBe("mcp__my_server__read_file")
    const long = toolNameOf("a-very-long-server-name", "x".repeat(80))
    expect(long.length).toBe(64)
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(toolNameOf("a-very-long-server-name", `${"x".repeat(79)}y`)).not.toBe(long)
  })

  test("content mapping: text in order, images named with size, resources with text, structured content not repeated", () => {
    const same = mapToolResult({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } })
    expect(same.text).toBe('{"a":1}')
    expect(same.data.structured_content).toEqual({ a: 1 })
    const other = mapToolResult({ content: [{ type: "text", text: "summary" }], structuredContent: { a: 1 } })
    expect(other.text).toBe('summary\n{\n  "a": 1\n}')
    const mixed = mapToolResult({
      content: [
        { type: "image", data: "A".repeat(4000), mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///x.txt", text: "inside", mimeType: "text/plain" } },
        { type: "resource_link", uri: "file:///y", name: "y" },
      ],
    })
    expect(mixed.text).toBe("[image: image/png, 2.9 KB; the data is in the envelope's data.content]\n[resource file:///x.txt (text/plain)]\ninside\n[resource link: y file:///y]")
    expect((mixed.data.content as Array<unknown>).length).toBe(3)
    expect(mapToolResult({ content: [{ type: "text", text: "bad" }], isError: true }).isError).toBe(true)
    expect(mapToolResult({ content: [] }).text).toBe("(the tool returned no content)")
  })

  test("content mapping: a block of a type anvil does not know, or missing a field its type requires, is a stated line; every other block is kept", () => {
    const blocks = [
      { type: "text", text: "first" },
      { type: "video", mimeType: "video/mp4", data: "AAAA".repeat(400) },
      { type: "image", mimeType: "image/png" },
      { type: "text" },
      { type: "resource", resource: { uri: "file:///b" } },
      { mimeType: "x/y" },
      42,
      { type: "audio", mimeType: "audio/wav", data: "AAAA" },
      { type: "text", text: "last" },
    ]
    const mapped = mapToolResult({ content: blocks })
    expect(mapped.text.split("\n")).toEqual([
      "first",
      `[content block of type "video" (a type anvil does not show), 1.6 KB; it is kept in the envelope's data.content]`,
      "[image block anvil cannot read (no data), 39 bytes; it is kept in the envelope's data.content]",
      "[text block anvil cannot read (no text), 15 bytes; it is kept in the envelope's data.content]",
      "[resource block anvil cannot read (a resource with neither text nor blob), 50 bytes; it is kept in the envelope's data.content]",
      "[content block without a type, 18 bytes; it is kept in the envelope's data.content]",
      "[content block that is not an object (number), 2 bytes; it is kept in the envelope's data.content]",
      "[audio: audio/wav, 3 bytes; the data is in the envelope's data.content]",
      "last",
    ])
    expect(mapped.data.content).toEqual(blocks)
    expect(mapped.isError).toBe(false)
    // Content that is no list at all is not read as blocks (the adapter refuses such an answer).
    expect(mapToolResult({ content: "not a list" }).text).toBe("(the tool returned no content)")
    expect(contentProblem({ content: "not a list" })).toBe("content: expected a list of content blocks, received string")
    expect(contentProblem({})).toBeUndefined()
  })

  test("a registry with a source: tools listed as they join, names looked up even before", () => {
    const joined: Array<(typeof builtinTools)[number]> = []
    const calc = builtinTools.find((t) => t.name === "calculator")!
    const registry = makeRegistry([calc], [{ tools: () => joined, lookup: (n) => (n === "mcp__x__y" ? calc : undefined) }])
    expect(registry.tools.map((t) => t.name)).toEqual(["calculator"])
    expect(registry.lookup("mcp__x__y")).toBe(calc)
    joined.push({ ...calc, name: "mcp__x__z" })
    expect(registry.tools.map((t) => t.name)).toEqual(["calculator", "mcp__x__z"])
  })
})

describe("the hub", () => {
  const hubs: Array<ReturnType<typeof makeMcpHub>> = []
  afterAll(async () => {
    for (const h of hubs) await h.dispose()
  })

  const hubWith = (servers: Record<string, unknown>, events: Array<McpEvent> = []) => {
    const home = tempDir("anvil-mcp-units-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: servers }))
    const root = project()
    const hub = makeMcpHub({ root, env: { HOME: home, PATH: process.env.PATH }, onEvent: (e) => events.push(e) })
    hubs.push(hub)
    return { hub, root, home }
  }

  test("startWithin waits for servers until connected or failed, at most its bound; the note names one still starting and one failed", async () => {
    const { hub } = hubWith({
      slow: { command: process.execPath, args: [TINY, "--start-delay=300"] },
      late: { command: process.execPath, args: [TINY, "--start-delay=8000"] },
      broken: { command: process.execPath, args: [TINY, "--exit-at-start"] },
    })
    await hub.startWithin(1500)
    const status = Object.fromEntries(hub.views().map((v) => [v.name, v.status]))
    expect(status).toEqual({ slow: "connected", late: "starting", broken: "failed" })
    expect(hub.toolSource.tools().map((t) => t.name)).toContain("mcp__slow__echo")
    const note = hub.note()
    expect(note).toContain("MCP server 'late' is still starting; its tools (mcp__late__…) join the next requests once it connects.")
    expect(note).toContain("MCP server 'broken' is unavailable (failed: the server exited with code 4; its stderr ends: tiny: fatal: the configuration file is missing); its tools cannot be called.")
    expect(note).not.toContain("'slow'")
    // Nothing to start (a disabled server only): the wait ends at once, not at its bound.
    const idle = hubWith({ off: { command: "whatever", enabled: false } }).hub
    expect(await Promise.race([idle.startWithin(60_000).then(() => "settled"), Bun.sleep(5000).then(() => "waited")])).toBe("settled")
  })

  test("a server that answers the handshake with an error or an unknown protocol version is failed with that answer, not with the exit that follows", async () => {
    const { hub } = hubWith({
      refuses: { command: process.execPath, args: [TINY, "--refuse-init"] },
      ancient: { command: process.execPath, args: [TINY, "--protocol=2023-01-01"] },
    })
    await hub.startWithin(10_000)
    const errors = Object.fromEntries(hub.views().map((v) => [v.name, `${v.status}: ${v.error}`]))
    expect(errors.refuses).toBe("failed: MCP error -32000: license check failed: no seat left")
    expect(errors.ancient).toBe("failed: protocol mismatch: Server's protocol version is not supported: 2023-01-01")
  })

  test("a server that dies in calls is started again at most 3 times; the call that uses up the last start says it is not started again", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY], permission: "allow" } })
    const options = { tools: [], toolSources: [hub.toolSource] }
    const messages: Array<string> = []
    for (let i = 0; i < 5; i++) messages.push((await callTool(root, "mcp__tiny__crash", {}, options)).envelope.error!.message)
    expect(messages.slice(0, 3).every((m) => m.endsWith("It is started again on the next call."))).toBe(true)
    expect(messages[3]).toEndWith("It crashed too often and is not started again this session.")
    expect(messages[4]).toStartWith("MCP server 'tiny' crashed and was restarted 3 times; not again this session.")
  })

  test("listChanged: a tool added by the server joins the hub's tools; resources and prompts are listed", async () => {
    const events: Array<McpEvent> = []
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY], permission: "allow" } }, events)
    hub.startAll()
    await hub.settled()
    expect(hub.views()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25", serverInfo: { name: "tiny", version: "1.0.0" } })
    expect(hub.toolSource.tools().map((t) => t.name)).not.toContain("mcp__tiny__late")
    const added = await callTool(root, "mcp__tiny__add_tool", { name: "late" }, { tools: [], toolSources: [hub.toolSource] })
    expect(added.envelope.text).toContain("added late")
    const deadline = performance.now() + 5000
    while (!hub.toolSource.tools().some((t) => t.name === "mcp__tiny__late") && performance.now() < deadline) await Bun.sleep(20)
    expect(hub.toolSource.tools().map((t) => t.name)).toContain("mcp__tiny__late")
    expect(events.some((e) => e.type === "status" && e.status === "connected")).toBe(true)
    expect((await hub.listResources("tiny")).map((r) => r.uri)).toEqual(["tiny://readme"])
    expect((await hub.listPrompts("tiny")).map((p) => p.name)).toEqual(["greet"])
    const malformed = await callTool(root, "mcp__tiny__malformed", {}, { tools: [], toolSources: [hub.toolSource] })
    expect(malformed.envelope.error!.message).toBe("tiny/malformed failed: the server's answer is not valid MCP (content: expected a list of content blocks, received string)")
    const failed = await callTool(root, "mcp__tiny__fails", {}, { tools: [], toolSources: [hub.toolSource] })
    expect(failed.envelope.error).toMatchObject({ code: "EXECUTION_ERROR" })
    expect(failed.envelope.error!.message).toContain("the thing failed")
  })

  test("listChanged to a list with an invalid tool keeps the valid new tools and reports the bad one; a list that cannot be read keeps the old one, reported", async () => {
    const events: Array<McpEvent> = []
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY], permission: "allow" } }, events)
    hub.startAll()
    await hub.settled()
    const options = { tools: [], toolSources: [hub.toolSource] }
    const names = () => hub.toolSource.tools().map((t) => t.name)
    const until = async (ok: () => boolean) => {
      const deadline = performance.now() + 5000
      while (!ok() && performance.now() < deadline) await Bun.sleep(20)
    }
    expect((await callTool(root, "mcp__tiny__add_bad_tool", { name: "fresh" }, options)).envelope.status).toBe("success")
    await until(() => names().includes("mcp__tiny__fresh"))
    expect(names()).toContain("mcp__tiny__fresh")
    expect(names()).not.toContain("mcp__tiny__fresh_bad")
    expect(names()).toContain("mcp__tiny__echo")
    const statusError = (e: McpEvent) => (e.type === "status" ? (e.error ?? "") : "")
    const warned = events.find((e) => statusError(e).includes("fresh_bad"))
    expect(warned?.type === "status" && warned.status).toBe("connected")
    expect(statusError(warned!)).toContain("after its tool list changed, 1 tool was left out")
    expect(hub.views()[0]!.error).toContain("fresh_bad: ")

    const before = names().length
    expect((await callTool(root, "mcp__tiny__break_list", {}, options)).envelope.status).toBe("success")
    await until(() => events.some((e) => statusError(e).includes("could not be read again")))
    const broken = events.find((e) => statusError(e).includes("could not be read again"))
    expect(broken?.type === "status" && broken.status).toBe("connected")
    expect(statusError(broken!)).toContain(`the ${before} tools listed before are kept`)
    expect(names().length).toBe(before)
    expect((await callTool(root, "mcp__tiny__echo", { message: "still" }, options)).envelope.text).toContain("echo: still")
    // Where a person sees MCP problems (anvil run's and the chat's stderr): a warning line naming the server.
    expect(mcpHumanLine(broken!)).toStartWith("anvil: warning: MCP server 'tiny': its tool list changed but could not be read again (")
  })

  test("a server's own -32000 error is its answer, not a lost connection; an answer that is not JSON-RPC fails at once, not at the deadline", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY], permission: "allow", timeout: 30_000 } })
    const options = { tools: [], toolSources: [hub.toolSource] }
    const refused = await callTool(root, "mcp__tiny__server_error", {}, options)
    expect(refused.envelope.error).toMatchObject({ code: "EXECUTION_ERROR" })
    expect(refused.envelope.error!.message).toBe("tiny/server_error failed: MCP error -32000: the database is locked")
    expect(hub.views()[0]).toMatchObject({ status: "connected", restarts: 0 })
    const started = performance.now()
    const broken = await callTool(root, "mcp__tiny__null_result", {}, options)
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(broken.envelope.error!.message).toContain("the server's answer is not valid JSON-RPC: its result is null, not an object")
    expect((await callTool(root, "mcp__tiny__echo", { message: "still here" }, options)).envelope.text).toContain("echo: still here")
    // An answer its own output schema refuses is the server's fault, not INVALID_PARAM.
    const typed = await callTool(root, "mcp__tiny__typed", {}, options)
    expect(typed.envelope.error).toMatchObject({ code: "EXECUTION_ERROR", retryable: false })
    expect(typed.envelope.error!.message).toStartWith("tiny/typed answered with a result its own output schema refuses (Structured content does not match the tool's output schema")
  })

  test("a call or start-up that runs out of time says so, and names what the server sent that anvil cannot read", async () => {
    const { hub, root } = hubWith({
      tiny: { command: process.execPath, args: [TINY], permission: "allow", timeout: 500 },
      late: { command: process.execPath, args: [TINY, "--start-delay=8000"], permission: "allow", startupTimeout: 500 },
    })
    const options = { tools: [], toolSources: [hub.toolSource] }
    const garbled = await callTool(root, "mcp__tiny__garbled", {}, options)
    expect(garbled.envelope.error).toMatchObject({ code: "TIMEOUT" })
    expect(garbled.envelope.error!.message).toBe(
      'tiny/garbled did not answer within 500 ms (the call\'s deadline; "timeout" in the server\'s settings); meanwhile the server sent what anvil cannot read (not a JSON-RPC message on stdout: result: 42 (printed, not sent)). The call was cancelled.',
    )
    // A plain hang names nothing more.
    expect((await callTool(root, "mcp__tiny__hang", {}, options)).envelope.error!.message).toContain("settings). The call was cancelled.")
    // Out of start-up time: the time-out is the reason, not the exit of the server anvil then closed.
    const late = await callTool(root, "mcp__late__echo", { message: "x" }, options)
    expect(late.envelope.error!.message).toContain('timeout: the server did not finish the start-up handshake within 500 ms ("startupTimeout" in its settings)')
    expect(late.envelope.error!.message).not.toContain("exited")
  })

  test("a line of stdout with no end in sight is dropped, not held whole, and named when the call runs out of time", async () => {
    const { hub, root } = hubWith({ flood: { command: process.execPath, args: [TINY], permission: "allow", timeout: 3000 } })
    const flood = await callTool(root, "mcp__flood__flood", {}, { tools: [], toolSources: [hub.toolSource] })
    expect(flood.envelope.error).toMatchObject({ code: "TIMEOUT" })
    expect(flood.envelope.error!.message).toContain("meanwhile the server sent what anvil cannot read (a line of more than 64 Mi characters on stdout, no message anvil takes; dropped up to its end: yyyy")
  }, 30_000)

  test("two servers whose names give the same tool names: the later one is failed and says why; the first works", async () => {
    const { hub, root } = hubWith({
      "my.server": { command: process.execPath, args: [TINY], permission: "allow" },
      my_server: { command: process.execPath, args: [TINY], permission: "allow" },
      MY_SERVER: { command: "x", enabled: false },
    })
    hub.startAll()
    await hub.settled()
    const [first, second, third] = hub.views()
    expect(first).toMatchObject({ name: "my.server", status: "connected" })
    expect(second).toMatchObject({ name: "my_server", status: "failed" })
    expect(second!.error).toStartWith("its tools would have the same names as those of the server 'my.server' (mcp__my_server__…); rename one of them in ")
    expect(third).toMatchObject({ status: "disabled" })
    const names = hub.toolSource.tools().map((t) => t.name)
    expect(new Set(names).size).toBe(names.length)
    expect((await callTool(root, "mcp__my_server__echo", { message: "one" }, { tools: [], toolSources: [hub.toolSource] })).envelope.text).toContain("echo: one")
  })

  test("an HTTP server that answers the handshake with an error status is failed with that status named", async () => {
    const broken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("upstream down", { status: 502 }) })
    try {
      const { hub } = hubWith({ web: { type: "http", url: `http://127.0.0.1:${broken.port}/mcp` } })
      hub.startAll()
      await hub.settled()
      expect(hub.views()[0]).toMatchObject({ status: "failed" })
      expect(hub.views()[0]!.error).toStartWith(`cannot connect to http://127.0.0.1:${broken.port}/mcp (HTTP 502): `)
      expect(hub.views()[0]!.error).toContain("upstream down")
    } finally {
      broken.stop(true)
    }
  })

  test("an HTTP address where no MCP server answers says what is there instead and what to check, not only 'cannot connect'", async () => {
    const page = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html>sign in</html>", { headers: { "content-type": "text/html" } }) })
    const text = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("{not json", { headers: { "content-type": "application/json" } }) })
    // A port nothing listens on: one a server held a moment ago.
    const gone = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") })
    const closed = gone.port
    gone.stop(true)
    try {
      const { hub } = hubWith({
        page: { type: "http", url: `http://127.0.0.1:${page.port}/mcp` },
        text: { type: "http", url: `http://127.0.0.1:${text.port}/mcp` },
        closed: { type: "http", url: `http://127.0.0.1:${closed}/mcp` },
      })
      hub.startAll()
      await hub.settled()
      const [p, t, c] = hub.views()
      const check = (name: string) => `Next: check "url" in the settings of '${name}' (`
      expect(p).toMatchObject({ status: "failed" })
      expect(p!.error).toStartWith(`http://127.0.0.1:${page.port}/mcp answered with a web page, not MCP (an MCP server answers with application/json or text/event-stream). ${check("page")}`)
      expect(t!.error).toStartWith(`http://127.0.0.1:${text.port}/mcp answered with what is not JSON, so not MCP (`)
      expect(t!.error).toContain(check("text"))
      expect(c!.error).toStartWith(`cannot connect to http://127.0.0.1:${closed}/mcp: nothing answers there (connection refused). Next: start the server, or check "url" in the settings of 'closed' (`)
    } finally {
      page.stop(true)
      text.stop(true)
    }
  })

  test("tools whose definitions are not valid MCP are left out and named; the server's other tools work", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY, "--bad-tools"], permission: "allow" } })
    hub.startAll()
    await hub.settled()
    const view = hub.views()[0]!
    expect(view.status).toBe("connected")
    expect(view.tools.map((t) => t.name)).toContain("echo")
    expect(view.tools.map((t) => t.name)).not.toContain("no_schema")
    expect(view.error).toStartWith("2 tools were left out: their definitions are not valid MCP\n  no_schema: inputSchema:")
    expect(view.error).toContain("\n  string_schema: ")
    expect((await callTool(root, "mcp__tiny__echo", { message: "hi" }, { tools: [], toolSources: [hub.toolSource] })).envelope.text).toContain("echo: hi")
  })

  test("tools whose anvil names clash (a name listed twice, in another case, or made the same by the name rules): the first is kept, the others named", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY, "--clashing-tools"], permission: "allow" } })
    hub.startAll()
    await hub.settled()
    const view = hub.views()[0]!
    expect(view.status).toBe("connected")
    const names = view.tools.map((t) => t.name)
    expect(names.filter((n) => n.toLowerCase() === "echo")).toEqual(["echo"])
    expect(names).toContain("e.cho")
    expect(names).not.toContain("e_cho")
    expect(view.error).toContain("\n  echo: anvil would name it mcp__tiny__echo, as the earlier 'echo' (tool names match without regard to case); the first is kept")
    expect(view.error).toContain("\n  ECHO: anvil would name it mcp__tiny__ECHO, as the earlier 'echo'")
    expect(view.error).toContain("\n  e_cho: anvil would name it mcp__tiny__e_cho, as the earlier 'e.cho'")
    // The first echo answers, whatever case the call uses.
    expect((await callTool(root, "mcp__tiny__ECHO", { message: "hi" }, { tools: [], toolSources: [hub.toolSource] })).envelope.text).toContain("echo: hi")
  })

  test("streamable HTTP: a server gone during a call answers at once, not at the deadline; arguments its schema refuses are INVALID_PARAM; a lost session is opened again", async () => {
    const web = streamableServer()
    try {
      const { hub, root } = hubWith({ web: { type: "http", url: web.url, permission: "allow", timeout: 60_000 } })
      const options = { tools: [], toolSources: [hub.toolSource] }
      const started = performance.now()
      const gone = await callTool(root, "mcp__web__crash", {}, options)
      expect(performance.now() - started).toBeLessThan(10_000)
      expect(gone.envelope.error).toMatchObject({ code: "EXECUTION_ERROR", retryable: true })
      expect(gone.envelope.error!.message).toContain("went away during the call")
      expect((await callTool(root, "mcp__web__echo", { message: "still here" }, options)).envelope.text).toContain("echo: still here")
      const refused = await callTool(root, "mcp__web__refuses", {}, options)
      expect(refused.envelope.error).toMatchObject({ code: "INVALID_PARAM", message: expect.stringContaining("anvil mcp tools web") })
      // The server restarted and lost anvil's session (404): a new session is opened and the call goes through.
      web.forgetSessions!()
      expect((await callTool(root, "mcp__web__echo", { message: "new session" }, options)).envelope.text).toContain("echo: new session")
      expect((await callTool(root, "mcp__web__echo", { message: "and again" }, options)).envelope.text).toContain("echo: and again")
    } finally {
      web.stop()
    }
  })

  test("a permission rule denies one MCP tool; the server's default permission applies otherwise", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY], permission: "deny" } })
    const denied = await callTool(root, "mcp__tiny__echo", { message: "x" }, { tools: [], toolSources: [hub.toolSource] })
    expect(denied.envelope.error!.code).toBe("PERMISSION_DENIED")
  })

  test("per tool, the usual permission rules apply: one tool denied, another asked", async () => {
    const { hub, root } = hubWith({ tiny: { command: process.execPath, args: [TINY] } })
    const asked: Array<string> = []
    const options = {
      tools: [],
      toolSources: [hub.toolSource],
      configOverrides: { permission: { mcp__tiny__big: "deny" } },
      onAsk: (r: { tool: { name: string } }) => Effect.sync(() => (asked.push(r.tool.name), true)),
    }
    expect((await callTool(root, "mcp__tiny__big", { lines: 1 }, options)).envelope.error!.code).toBe("PERMISSION_DENIED")
    expect((await callTool(root, "mcp__tiny__echo", { message: "hi" }, options)).envelope.text).toContain("echo: hi")
    expect(asked).toEqual(["mcp__tiny__echo"])
    // A wildcard covers every tool of the server; a tool's own key still wins.
    const wide = { ...options, configOverrides: { permission: { "mcp__tiny__*": "allow", mcp__tiny__big: "deny" } } }
    expect((await callTool(root, "mcp__tiny__echo", { message: "again" }, wide)).envelope.text).toContain("echo: again")
    expect(asked).toEqual(["mcp__tiny__echo"])
    expect((await callTool(root, "mcp__tiny__big", { lines: 1 }, wide)).envelope.error!.code).toBe("PERMISSION_DENIED")
  })
})
