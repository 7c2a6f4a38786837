import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { toolResults } from "../support/anvil-cli.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { project, tempDir } from "../support/harness.ts"
import { sseOnlyServer, streamableServer, type TestHttpServer } from "./http-servers.ts"

// The MCP paths through the compiled executable: real servers (server-everything,
// server-filesystem from devDependencies), the tiny test server over stdio, and
// HTTP servers on 127.0.0.1 in this process.
setDefaultTimeout(60_000)

const repo = join(import.meta.dir, "..", "..")
const bin = (name: string) => join(repo, "node_modules", ".bin", name)
const TINY = join(import.meta.dir, "tiny-server.ts")
let binary = ""

beforeAll(() => {
  binary = join(tempDir("anvil-mcp-build-"), "anvil")
  const build = Bun.spawnSync([process.execPath, "build.ts", "--outfile", binary], { cwd: repo, stdout: "pipe", stderr: "pipe" })
  if (build.exitCode !== 0) throw new Error(`build.ts failed:\n${build.stdout}${build.stderr}`)
}, 60_000)

const stops: Array<() => void> = []
afterAll(() => stops.forEach((s) => s()))
const keep = <T extends TestHttpServer | FakeServer>(server: T): T => {
  stops.push(server.stop)
  return server
}

interface Setup {
  readonly root: string
  readonly home: string
  readonly marks: string
  readonly env: Record<string, string>
}

/** A project with `servers` in the user's anvil.json (trusted) and `projectServers` in the project's .mcp.json. */
const setup = (servers: Record<string, unknown>, projectServers?: Record<string, unknown>, extraEnv: Record<string, string> = {}): Setup => {
  const root = project({ "notes.txt": "hello\n" })
  const home = tempDir("anvil-mcp-home-")
  const marks = tempDir("anvil-mcp-marks-")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: servers }))
  if (projectServers) writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: projectServers }))
  return { root, home, marks, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1", ...extraEnv } }
}

const tiny = (marks: string, ...flags: Array<string>) => ({ command: process.execPath, args: [TINY, `--mark=${marks}`, ...flags] })

const run = async (s: Setup, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const proc = Bun.spawn([binary, ...args], { cwd: s.root, env: { ...s.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

const json = (text: string) => JSON.parse(text)
const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))

/** Process ids the tiny servers wrote to their mark folder. */
const serverPids = (marks: string) => readdirSync(marks).filter((f) => f.startsWith("pid-")).map((f) => Number(f.slice(4)))
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z")
  } catch {
    return false
  }
}

const openai = (turns: ReadonlyArray<FakeTurn>) => {
  const server = keep(fakeOpenAI(turns))
  return { server, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
}

describe("anvil mcp and anvil tool with real servers", () => {
  test("server-everything and server-filesystem over stdio: listed, tools called, large result truncated with the whole in the spill file", async () => {
    const s = setup({})
    const big = Array.from({ length: 6000 }, (_, i) => `row ${i + 1}`).join("\n")
    writeFileSync(join(s.root, "big.txt"), `${big}\n`)
    writeFileSync(
      join(s.home, ".config", "anvil", "anvil.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: bin("mcp-server-everything") },
          fs: { command: bin("mcp-server-filesystem"), args: [s.root] },
          gone: { command: "no-such-mcp-server-here" },
          off: { command: "whatever", enabled: false },
        },
      }),
    )
    const list = await run(s, ["mcp", "--json"])
    expect(list.code).toBe(0)
    const servers = Object.fromEntries(json(list.stdout).servers.map((v: any) => [v.name, v]))
    expect(servers.everything.status).toBe("connected")
    expect(servers.everything.protocol_version).toBe("2025-11-25")
    expect(servers.everything.tools.map((t: any) => t.name)).toContain("mcp__everything__get-sum")
    expect(servers.fs.status).toBe("connected")
    expect(servers.fs.tools.map((t: any) => t.name)).toContain("mcp__fs__read_text_file")
    expect(servers.gone).toMatchObject({ status: "failed", error: "command not found: no-such-mcp-server-here" })
    expect(servers.off.status).toBe("disabled")

    const human = await run(s, ["mcp"])
    expect(human.stdout).toMatch(/everything\s+connected\s+stdio\s+\d+/)
    expect(human.stdout).toContain("command not found: no-such-mcp-server-here")

    const sum = await run(s, ["tool", "mcp__everything__get-sum", '{"a": 2, "b": 40}'])
    expect(sum.code).toBe(0)
    expect(json(sum.stdout)).toMatchObject({ status: "success", data: { content: [{ type: "text" }] } })
    expect(json(sum.stdout).text).toContain("42")

    const tools = await run(s, ["mcp", "tools", "fs", "--json"])
    const readTool = json(tools.stdout).tools.find((t: any) => t.mcp_name === "read_text_file")
    expect(readTool.inputSchema.properties.path).toBeDefined()

    const read = await run(s, ["tool", "mcp__fs__read_text_file", JSON.stringify({ path: join(s.root, "big.txt") })])
    expect(read.code).toBe(0)
    const envelope = json(read.stdout)
    expect(envelope.status).toBe("partial")
    expect(envelope.data.truncated).toBe(true)
    const spilled = readFileSync(join(s.root, envelope.data.truncation.full_output_path), "utf8")
    expect(spilled).toContain("row 6000")
    expect(readFileSync(join(s.root, envelope.data.truncation.full_output_text_path), "utf8")).toContain("row 1\nrow 2\n")
    expect(envelope.text).not.toContain("row 6000")

    const resources = await run(s, ["mcp", "resources", "everything", "--json"])
    expect(json(resources.stdout).resources.length).toBeGreaterThan(0)
    const prompts = await run(s, ["mcp", "prompts", "everything"])
    expect(prompts.stdout).toContain("simple-prompt")
  })

  test("a server that exits at start: exit code and stderr tail; a hanging call meets its deadline and the server is sent a cancel", async () => {
    const s = setup({})
    writeFileSync(
      join(s.home, ".config", "anvil", "anvil.json"),
      JSON.stringify({
        mcpServers: {
          dies: tiny(s.marks, "--exit-at-start"),
          slow: { ...tiny(s.marks), timeout: 400 },
          old: tiny(s.marks, "--protocol=2024-11-05"),
        },
      }),
    )
    const list = json((await run(s, ["mcp", "--json"])).stdout)
    const dies = list.servers.find((v: any) => v.name === "dies")
    expect(dies.status).toBe("failed")
    expect(dies.error).toContain("exited with code 4")
    expect(dies.error).toContain("fatal: the configuration file is missing")
    expect(list.servers.find((v: any) => v.name === "old").protocol_version).toBe("2024-11-05")

    const started = performance.now()
    const hang = await run(s, ["tool", "mcp__slow__hang", "{}"])
    expect(performance.now() - started).toBeLessThan(15_000)
    expect(hang.code).toBe(1)
    const envelope = json(hang.stdout)
    expect(envelope.error.code).toBe("TIMEOUT")
    expect(envelope.error.message).toContain("400 ms")
    expect(readdirSync(s.marks).some((f) => f.startsWith("cancelled-"))).toBe(true)
    for (const pid of serverPids(s.marks)) expect(alive(pid)).toBe(false)
  })

  test("an HTTP address that answers with a web page is named so, with the setting to check; the call's envelope says it too", async () => {
    const page = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html>sign in</html>", { headers: { "content-type": "text/html" } }) })
    stops.push(() => page.stop(true))
    const url = `http://127.0.0.1:${page.port}/mcp`
    const s = setup({ site: { type: "http", url, permission: "allow" } })
    const listed = await run(s, ["mcp"])
    expect(listed.stdout).toContain(`${url} answered with a web page, not MCP (an MCP server answers with application/json or text/event-stream). Next: check "url" in the settings of 'site'`)
    const call = json((await run(s, ["tool", "mcp__site__anything", "{}"])).stdout)
    expect(call.error.message).toContain(`${url} answered with a web page, not MCP`)
  })

  test("a result with a block of a type anvil does not know and one missing its data: the call succeeds, those two are stated lines, the rest kept", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: { t: tiny(s.marks) } }))
    const out = await run(s, ["tool", "mcp__t__mixed", "{}"])
    expect(out.code).toBe(0)
    const envelope = json(out.stdout)
    expect(envelope.status).toBe("success")
    expect(envelope.text.split("\n")).toEqual([
      "# mcp__t__mixed",
      "",
      "first",
      `[content block of type "video" (a type anvil does not show), 1.6 KB; it is kept in the envelope's data.content]`,
      "[image block anvil cannot read (no data), 39 bytes; it is kept in the envelope's data.content]",
      "[audio: audio/wav, 3 bytes; the data is in the envelope's data.content]",
      "[resource link: notes.txt file:///notes.txt]",
      "[resource file:///a.txt]",
      "inside a",
      "[content block that is not an object (string), 15 bytes; it is kept in the envelope's data.content]",
      "last",
    ])
    expect(envelope.data.content).toHaveLength(8)
  })

  test("Ctrl-C during a call: CANCELLED, the server gets the protocol's cancel, no server left", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: { t: tiny(s.marks) } }))
    const proc = Bun.spawn([binary, "tool", "mcp__t__hang", "{}"], { cwd: s.root, env: s.env, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
    const deadline = performance.now() + 20_000
    while (!existsSync(join(s.marks, "log")) || !readFileSync(join(s.marks, "log"), "utf8").includes('"hang"')) {
      if (performance.now() > deadline) throw new Error("the call never reached the server")
      await Bun.sleep(20)
    }
    proc.kill("SIGINT")
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(json(stdout).error.code).toBe("CANCELLED")
    expect(code).not.toBe(0)
    expect(readdirSync(s.marks).some((f) => f.startsWith("cancelled-"))).toBe(true)
    for (const pid of serverPids(s.marks)) expect(alive(pid)).toBe(false)
  })

  test("streamable HTTP with headers from the environment (never shown), SSE fallback, progress", async () => {
    const http = keep(streamableServer())
    const sse = keep(sseOnlyServer())
    const s = setup(
      {
        web: { type: "http", url: http.url, headers: { Authorization: "Bearer ${TINY_TOKEN}" } },
        legacy: { type: "http", url: sse.url },
      },
      undefined,
      { TINY_TOKEN: "tok-very-secret-123" },
    )
    const list = json((await run(s, ["mcp", "--json"])).stdout)
    const web = list.servers.find((v: any) => v.name === "web")
    expect(web).toMatchObject({ status: "connected", transport: "http" })
    expect(list.servers.find((v: any) => v.name === "legacy")).toMatchObject({ status: "connected", transport: "sse" })

    const who = await run(s, ["tool", "mcp__web__whoami", "{}"])
    expect(json(who.stdout).text).toContain("authorization=Bearer tok-very-secret-123")
    expect(http.authorizations).toContain("Bearer tok-very-secret-123")
    const echo = await run(s, ["tool", "mcp__legacy__echo", '{"message": "over sse"}', "--text"])
    expect(echo.stdout).toContain("echo: over sse")

    const progress = await run(s, ["tool", "mcp__web__progress", "{}"])
    expect(json(progress.stdout).text).toContain("progress done")
    expect(progress.stderr).toContain("[web/progress] progress 67%: step 2")

    // The token is in no listing, status or error.
    const listing = await run(s, ["mcp"])
    expect(listing.stdout + listing.stderr + JSON.stringify(list)).not.toContain("tok-very-secret-123")
  })
})

describe("agent runs with MCP servers", () => {
  test("tool hooks see MCP calls as any other: a Claude Code PreToolUse hook on mcp__.* blocks or changes them, in anvil tool and in the agent", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: { tiny: { ...tiny(s.marks), permission: "allow" } } }))
    const changed = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { message: "changed by the hook" } } })
    const guard = `if grep -q forbidden; then echo "no forbidden echoes" >&2; exit 2; fi; echo '${changed}'`
    const post = `cat >/dev/null; echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "seen after" } })}'`
    const hooks = { PreToolUse: [{ matcher: "mcp__.*", hooks: [{ type: "command", command: guard }] }], PostToolUse: [{ matcher: "mcp__tiny__echo", hooks: [{ type: "command", command: post }] }] }
    mkdirSync(join(s.root, ".claude"), { recursive: true })
    writeFileSync(join(s.root, ".claude", "settings.json"), JSON.stringify({ hooks }))
    expect((await run(s, ["plugins", "trust", "claude-settings"])).code).toBe(0)

    const blocked = json((await run(s, ["tool", "mcp__tiny__echo", '{"message": "forbidden"}'])).stdout)
    expect(blocked.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-settings': no forbidden echoes" })
    const fine = json((await run(s, ["tool", "mcp__tiny__echo", '{"message": "one"}'])).stdout)
    expect(fine.text).toContain("echo: changed by the hook")
    expect(fine.text).toContain("PostToolUse hook feedback:\nseen after")

    const { env } = openai([
      { tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "forbidden" }, id: "c1" }] },
      { tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "two" }, id: "c2" }] },
      { text: "done" },
    ])
    const r = await run(s, ["run", "--format", "stream-json", "use the tiny server"], env)
    expect(r.code).toBe(0)
    const results = Object.fromEntries(toolResults(lines(r.stdout)).map((e) => [e.id, e.envelope]))
    expect(results.c1.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-settings': no forbidden echoes" })
    expect(results.c2.text).toContain("echo: changed by the hook")
  })

  test("a call to a tool of a server that failed to start is that tool's failure (exit 1, a next step), not an unknown tool", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcp: { startup_timeout_ms: 0 }, mcpServers: { tiny: { command: "/bin/false" } } }))
    const r = await run(s, ["tool", "mcp__tiny__echo", '{"message": "x"}'])
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain("unknown tool")
    const envelope = json(r.stdout)
    expect(envelope.error.code).toBe("EXECUTION_ERROR")
    expect(envelope.error.message).toContain("MCP server 'tiny' failed to start")
    expect(envelope.text).toContain("Run `anvil mcp` to see the server's status and error")
  })

  test("a call that names a tool in another case, or a tool of a server still starting, meets that tool's own permission rules and hooks", async () => {
    const s = setup({})
    const servers = { tiny: { ...tiny(s.marks, "--start-delay=700"), permission: "allow" } }
    writeFileSync(
      join(s.home, ".config", "anvil", "anvil.json"),
      JSON.stringify({ mcp: { startup_timeout_ms: 0 }, mcpServers: servers, permission: { "mcp__tiny__echo": "deny" } }),
    )
    const hooks = { PreToolUse: [{ matcher: "mcp__tiny__whoami", hooks: [{ type: "command", command: "echo 'whoami is guarded' >&2; exit 2" }] }] }
    mkdirSync(join(s.root, ".claude"), { recursive: true })
    writeFileSync(join(s.root, ".claude", "settings.json"), JSON.stringify({ hooks }))
    expect((await run(s, ["plugins", "trust", "claude-settings"])).code).toBe(0)

    // `anvil tool` calls while the server starts: the name is the tool's once the server listed it.
    for (const name of ["mcp__tiny__echo", "mcp__Tiny__ECHO"]) {
      const denied = json((await run(s, ["tool", name, '{"message": "x"}'])).stdout)
      expect(denied.error.code).toBe("PERMISSION_DENIED")
      expect(denied.error.message).toContain('"mcp__tiny__echo": "deny"')
    }
    const guarded = json((await run(s, ["tool", "MCP__TINY__WHOAMI", "{}"])).stdout)
    expect(guarded.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-settings': whoami is guarded" })
    const unknown = json((await run(s, ["tool", "mcp__tiny__nosuch", "{}"])).stdout)
    expect(unknown.error.code).toBe("INVALID_PARAM")
    expect(unknown.error.message).toStartWith("The MCP server 'tiny' has no tool 'nosuch'. Its tools: mcp__tiny__echo, ")

    // The agent's first calls go out before the server is up (no wait), under names of another case.
    const { env } = openai([
      { tool_calls: [{ name: "mcp__Tiny__Echo", arguments: { message: "x" }, id: "c1" }, { name: "Mcp__tiny__WhoAmI", arguments: {}, id: "c2" }] },
      { tool_calls: [{ name: "MCP__TINY__BIG", arguments: { lines: 2 }, id: "c3" }] },
      { text: "done" },
    ])
    const r = await run(s, ["run", "--yes", "--format", "stream-json", "use the tiny server"], env)
    // 4: calls were denied (the rule's and the hook's), and the run says so.
    expect(r.code).toBe(4)
    const results = Object.fromEntries(toolResults(lines(r.stdout)).map((e) => [e.id, e.envelope]))
    expect(results.c1.error.code).toBe("PERMISSION_DENIED")
    expect(results.c1.error.message).toContain('"mcp__tiny__echo": "deny"')
    expect(results.c2.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-settings': whoami is guarded" })
    expect(results.c3).toMatchObject({ status: "success", text: expect.stringContaining("line 2 of the big result") })

    // A call made once the handshake is done but not the tool list waits for the list, not only the handshake.
    const listing = setup({})
    writeFileSync(
      join(listing.home, ".config", "anvil", "anvil.json"),
      JSON.stringify({ mcp: { startup_timeout_ms: 0 }, mcpServers: { tiny: { ...tiny(listing.marks, "--list-delay=3000"), permission: "allow" } } }),
    )
    const late = openai([{ delay_ms: 1000, tool_calls: [{ name: "mcp__tiny__whoami", arguments: {}, id: "w1" }] }, { text: "done" }])
    const listed = await run(listing, ["run", "--format", "stream-json", "who am i"], late.env)
    expect(listed.code).toBe(0)
    expect(toolResults(lines(listed.stdout))[0]!.envelope).toMatchObject({ status: "success", text: expect.stringContaining("authorization=none") })
  })

  test("listChanged: the call right after the one that added a tool finds it, as the list is read again at once", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: { tiny: { ...tiny(s.marks), permission: "allow" } } }))
    const { env } = openai([
      { tool_calls: [{ name: "mcp__tiny__add_tool", arguments: { name: "fresh" }, id: "c1" }] },
      { tool_calls: [{ name: "mcp__tiny__fresh", arguments: {}, id: "c2" }] },
      { text: "done" },
    ])
    const r = await run(s, ["run", "--format", "stream-json", "add a tool, then call it"], env)
    expect(r.code).toBe(0)
    const results = Object.fromEntries(toolResults(lines(r.stdout)).map((e) => [e.id, e.envelope]))
    expect(results.c1.text).toContain("added fresh")
    expect(results.c2).toMatchObject({ status: "success", text: expect.stringContaining("fresh ran") })
  })

  test("tools join and are called by the agent; a hang meets its deadline, a crash is restarted on the next call; no server left", async () => {
    const s = setup({})
    writeFileSync(join(s.home, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: { tiny: { ...tiny(s.marks), timeout: 500, permission: "allow" } } }))
    const { server, env } = openai([
      { tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "first" }, id: "c1" }] },
      { tool_calls: [{ name: "mcp__tiny__hang", arguments: {}, id: "c2" }] },
      { tool_calls: [{ name: "mcp__tiny__crash", arguments: {}, id: "c3" }] },
      { tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "after the crash" }, id: "c4" }] },
      { tool_calls: [{ name: "mcp__tiny__big", arguments: { lines: 5000 }, id: "c5" }] },
      { text: "done" },
    ])
    const r = await run(s, ["run", "--format", "stream-json", "use the tiny server"], env)
    expect(r.code).toBe(0)
    const events = lines(r.stdout)
    const results = Object.fromEntries(toolResults(events).map((e) => [e.id, e.envelope]))
    expect(results.c1).toMatchObject({ status: "success", text: expect.stringContaining("echo: first") })
    expect(results.c2.error.code).toBe("TIMEOUT")
    expect(results.c3.error.code).toBe("EXECUTION_ERROR")
    expect(results.c3.error.message).toContain("exited with code 3")
    expect(results.c3.error.message).toContain("crashing on purpose")
    expect(results.c4).toMatchObject({ status: "success", text: expect.stringContaining("echo: after the crash") })
    expect(results.c5.status).toBe("partial")
    expect(readFileSync(join(s.root, results.c5.data.truncation.full_output_path), "utf8")).toContain("line 5000 of the big result")
    expect(events.some((e) => e.type === "system" && e.subtype === "mcp_server" && e.server === "tiny" && e.status === "connected")).toBe(true)
    // The tools were offered to the model once the server was up, with the server's schema.
    const offered = server.requests[1]!.body.tools.map((t: any) => t.function)
    const echo = offered.find((f: any) => f.name === "mcp__tiny__echo")
    expect(echo.parameters.required).toEqual(["message"])
    expect(serverPids(s.marks).length).toBe(2)
    for (const pid of serverPids(s.marks)) expect(alive(pid)).toBe(false)
  })

  test("an untrusted project .mcp.json is skipped in a non-TTY run and reported; trusted, it starts", async () => {
    const s = setup({}, undefined)
    writeFileSync(join(s.root, ".mcp.json"), JSON.stringify({ mcpServers: { proj: tiny(s.marks) } }))
    const { env } = openai([{ tool_calls: [{ name: "mcp__proj__echo", arguments: { message: "x" }, id: "c1" }] }, { text: "ok" }])
    const r = await run(s, ["run", "--format", "stream-json", "--yes", "try it"], env)
    const events = lines(r.stdout)
    expect(events[0].mcp_servers).toEqual([{ name: "proj", status: "untrusted" }])
    expect(events.find((e) => e.type === "system" && e.server === "proj")).toMatchObject({ status: "untrusted" })
    const result = toolResults(events)[0]
    expect(result.envelope.error.message).toContain("anvil mcp trust proj")
    expect(serverPids(s.marks)).toEqual([])

    const text = await run(s, ["run", "--yes", "again"], openai([{ text: "fine" }]).env)
    expect(text.stderr).toContain("MCP server 'proj' untrusted")

    // --trust-mcp: started for this run only.
    const once = await run(s, ["run", "--format", "stream-json", "--yes", "--trust-mcp", "try it"], openai([{ tool_calls: [{ name: "mcp__proj__echo", arguments: { message: "once" }, id: "c1" }] }, { text: "ok" }]).env)
    expect(toolResults(lines(once.stdout))[0].envelope.text).toContain("echo: once")
    expect(json((await run(s, ["mcp", "--json"])).stdout).servers[0].status).toBe("untrusted")
    // anvil tool: the refusal names --trust-mcp, which starts the server for that call only.
    const refused = await run(s, ["tool", "mcp__proj__echo", '{"message":"x"}'])
    expect(json(refused.stdout).error.message).toContain("(or pass --trust-mcp for one run)")
    expect((await run(s, ["tool", "mcp__proj__echo", '{"message":"call"}', "--trust-mcp", "--text"])).stdout).toContain("echo: call")
    // A server nobody configured is named as such, not as a missing tool among "load_tools".
    const nobody = await run(s, ["tool", "mcp__nosuch__echo", "{}"])
    expect(nobody.code).toBe(2)
    expect(json(nobody.stdout).error.message).toContain("No MCP server is configured for 'mcp__nosuch__echo' (the configured ones are proj;")
    expect(nobody.stderr).toContain("see 'anvil mcp list'")

    expect((await run(s, ["mcp", "trust", "proj"])).stdout).toContain("Trusted: proj")
    const after = json((await run(s, ["mcp", "--json"])).stdout)
    expect(after.servers[0].status).toBe("connected")
    // A changed definition needs trust again.
    writeFileSync(join(s.root, ".mcp.json"), JSON.stringify({ mcpServers: { proj: tiny(s.marks, "--protocol=2025-06-18") } }))
    const changed = json((await run(s, ["mcp", "--json"])).stdout)
    expect(changed.servers[0].status).toBe("untrusted")
    expect(changed.servers[0].error).toContain("changed since it was trusted")
  })

  test("an untrusted project server naming an unset variable is 'untrusted' (trust first), and 'failed' for that reason once trusted", async () => {
    const s = setup({}, undefined)
    writeFileSync(join(s.root, "anvil.json"), JSON.stringify({ mcpServers: { needy: { ...tiny(s.marks), env: { TOKEN: "${ANVIL_TEST_UNSET_TOKEN}" } } } }))
    const listed = json((await run(s, ["mcp", "list", "--json"])).stdout).servers[0]
    expect(listed).toMatchObject({ name: "needy", status: "untrusted", next_step: "anvil mcp trust needy" })
    expect(listed.error).toContain("run 'anvil mcp trust needy'")
    const text = (await run(s, ["mcp", "list"])).stdout
    expect(text).toMatch(/needy\s+untrusted/)
    expect(text).not.toContain("ANVIL_TEST_UNSET_TOKEN")
    expect((await run(s, ["mcp", "trust"])).stdout).toContain("Trusted: needy")
    const trusted = json((await run(s, ["mcp", "list", "--json"])).stdout).servers[0]
    expect(trusted).toMatchObject({ status: "failed" })
    expect(trusted.error).toContain("environment variable ANVIL_TEST_UNSET_TOKEN not set")
    expect(serverPids(s.marks)).toEqual([])
  })

  test("the first model request carries the tools of servers ready within mcp.startup_timeout_ms; a slower one is named as starting, a failed one as unavailable", async () => {
    const s = setup({})
    const http = keep(streamableServer())
    writeFileSync(
      join(s.home, ".config", "anvil", "anvil.json"),
      JSON.stringify({
        mcp: { startup_timeout_ms: 1500 },
        mcpServers: {
          quick: tiny(s.marks),
          slow: tiny(s.marks, "--start-delay=300"),
          web: { url: http.url },
          late: tiny(s.marks, "--start-delay=8000"),
          broken: tiny(s.marks, "--exit-at-start"),
        },
      }),
    )
    const { server, env } = openai([
      { tool_calls: [{ name: "mcp__slow__echo", arguments: { message: "hi from slow" }, id: "c1" }] },
      { text: "done" },
    ])
    const result = await run(s, ["run", "--yes", "--format", "stream-json", "use the slow server's echo tool"], env)
    expect(result.code).toBe(0)
    const events = lines(result.stdout)
    const init = events.find((e) => e.type === "system" && e.subtype === "init")
    expect(init.tools).toContain("mcp__slow__echo")
    expect(init.tools).toContain("mcp__web__echo")
    expect(Object.fromEntries(init.mcp_servers.map((v: any) => [v.name, v.status]))).toEqual({ quick: "connected", slow: "connected", web: "connected", late: "pending", broken: "failed" })
    // Told once, though it failed while the session opened.
    expect(events.filter((e) => e.subtype === "mcp_server" && e.server === "broken" && e.status === "failed").length).toBe(1)
    const first = server.requests[0]!.body as any
    // Offered directly or named in load_tools' catalogue (the schema budget decides which): either way in the first request.
    // The catalogue writes a server's tools on one line under its prefix: `- mcp__quick__*: echo: …; big: …`.
    const offered = JSON.stringify(first.tools)
    const catalogue: string = first.tools.find((t: any) => t.function.name === "load_tools")?.function.description ?? ""
    for (const server of ["quick", "slow", "web"]) {
      const named = first.tools.some((t: any) => t.function.name === `mcp__${server}__echo`) || new RegExp(`\\n- mcp__${server}__\\*: echo: `).test(catalogue)
      expect(named).toBe(true)
    }
    expect(offered).not.toContain("mcp__late__")
    const system = JSON.stringify(first.messages[0])
    expect(system).toContain("MCP server 'late' is still starting")
    expect(system).toContain("MCP server 'broken' is unavailable")
    expect(events.at(-1)).toMatchObject({ type: "result", result: "done" })
    expect(JSON.stringify((server.requests[1]!.body as any).messages)).toContain("hi from slow")
  })

  test("without a wait (mcp.startup_timeout_ms 0) a server still starting does not delay the first model request; SIGTERM and SIGKILL of anvil leave no server", async () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      const s = setup({})
      writeFileSync(
        join(s.home, ".config", "anvil", "anvil.json"),
        JSON.stringify({ mcp: { startup_timeout_ms: 0 }, mcpServers: { a: tiny(s.marks), b: tiny(s.marks), c: { command: "sleep", args: ["600"] } } }),
      )
      const { server, env } = openai([{ tool_calls: [{ name: "mcp__a__hang", arguments: {}, id: "c1" }] }])
      const proc = Bun.spawn([binary, "run", "--yes", "--format", "stream-json", "hang"], { cwd: s.root, env: { ...s.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
      const deadline = performance.now() + 20_000
      while (serverPids(s.marks).length < 2 || !existsSync(join(s.marks, "log")) || !readFileSync(join(s.marks, "log"), "utf8").includes('"hang"')) {
        if (performance.now() > deadline) throw new Error(`servers never started: ${await new Response(proc.stderr).text()}`)
        await Bun.sleep(20)
      }
      expect(server.requests.length).toBe(1)
      const sleeper = findSleeper(proc.pid)
      proc.kill(signal)
      await proc.exited
      const gone = performance.now() + 5000
      const pids = [...serverPids(s.marks), ...(sleeper ? [sleeper] : [])]
      while (pids.some(alive) && performance.now() < gone) await Bun.sleep(50)
      for (const pid of pids) expect(alive(pid)).toBe(false)
    }
  })
})

/** The `sleep 600` server started by anvil `parent` (through setpriv, which execs it). */
const findSleeper = (parent: number): number | undefined => {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) === parent && readFileSync(`/proc/${name}/cmdline`, "utf8").startsWith("sleep")) return Number(name)
    } catch {
      // gone
    }
  }
  return undefined
}

describe("anvil tools lists every tool a session could offer, with its source", () => {
  test("built-in, a plugin's and a stdio MCP server's tools, text and --json; a broken plugin and failed or untrusted servers are said, the rest listed", async () => {
    const s = setup({ tiny: tiny(tempDir("anvil-mcp-marks-")), dead: tiny(tempDir("anvil-mcp-marks-"), "--exit-at-start") }, { proj: { command: "true" } })
    const plugins = join(s.home, ".config", "anvil", "plugins")
    mkdirSync(plugins, { recursive: true })
    writeFileSync(
      join(plugins, "greet.ts"),
      `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default defineTool({ name: "greet", description: "Greets someone.", parameters: Schema.Struct({ who: Schema.String }), readOnly: true, run: async ({ who }) => "hi " + who })\n`,
    )
    writeFileSync(join(plugins, "bad.ts"), "broken(\n")
    const text = await run(s, ["tools"])
    expect(text.code).toBe(0)
    const row = (name: string) => text.stdout.split("\n").find((l) => l.startsWith(`${name} `))?.split(/\s{2,}/)
    expect(row("read")?.slice(0, 2)).toEqual(["read", "builtin"])
    expect(row("greet")).toEqual(["greet", "plugin:greet", "Greets someone."])
    expect(row("mcp__tiny__echo")).toEqual(["mcp__tiny__echo", "mcp:tiny", "Echoes its message."])
    expect(text.stderr).toContain("anvil: plugin 'bad' was not loaded")
    expect(text.stderr).toContain("anvil: tools: MCP server 'dead' is failed, so its tools are not listed: the server exited with code 4")
    expect(text.stderr).toContain("'anvil mcp' shows its state")
    expect(text.stderr).toContain("anvil: tools: MCP server 'proj' is untrusted, so its tools are not listed: defined by the project")
    expect(text.stderr).toContain("anvil mcp trust proj")

    const listed = await run(s, ["tools", "--json"])
    expect(listed.code).toBe(0)
    const tools = json(listed.stdout) as Array<{ name: string; source: string; parameters: unknown; permission: string }>
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("bash")?.source).toBe("builtin")
    expect(byName.get("load_tools")?.source).toBe("builtin")
    expect(byName.get("greet")).toMatchObject({ source: "plugin:greet", permission: "allow" })
    expect(byName.get("mcp__tiny__echo")).toMatchObject({ source: "mcp:tiny", parameters: { type: "object" } })
    expect(tools.filter((t) => t.source === "mcp:tiny").length).toBeGreaterThan(3)
    expect(tools.some((t) => t.source.startsWith("mcp:dead") || t.source.startsWith("mcp:proj"))).toBe(false)
    expect(listed.stderr).toContain("MCP server 'dead' is failed")
  })
})
