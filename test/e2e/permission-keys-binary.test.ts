import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"

// A permission key names a tool as tools are found: without regard to case, by Claude Code's name, and
// `mcp__SERVER` for all of a server's tools. Such a deny rule was ignored in silence before; through the binary.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const TINY = join(import.meta.dir, "..", "mcp", "tiny-server.ts")
const server = { command: process.execPath, args: [TINY], permission: "allow" }

const denied = async (permission: Record<string, unknown>, name: string, params: unknown, rule: string) => {
  const r = binaryRepo({ "a.txt": "alpha\n" }, { mcpServers: { tiny: server }, permission })
  const out = await binaryTool(r, name, params)
  expect(out.envelope.error?.code).toBe("PERMISSION_DENIED")
  expect(out.envelope.error.message).toContain(`is denied by the rule ${rule} in "permission"`)
  expect(out.code).toBe(1)
}

describe("permission keys written another way", () => {
  test("Claude Code's name and another case hold for a built-in tool, its patterns too", async () => {
    await denied({ Bash: "deny" }, "bash", { command: "echo hi" }, `"Bash": "deny"`)
    await denied({ BASH: { "echo *": "deny" } }, "bash", { command: "echo hi" }, `"BASH": {"echo *": "deny"}`)
    await denied({ Read: "deny" }, "read", { path: "a.txt" }, `"Read": "deny"`)
    await denied({ WebFetch: "deny" }, "fetch", { url: "http://127.0.0.1:9/" }, `"WebFetch": "deny"`)
  })

  test("Claude's Edit rule covers write as edit's does, and Read's rules hide files from grep", async () => {
    await denied({ Edit: { "*.txt": "deny" } }, "write", { path: "b.txt", content: "x" }, `"Edit": {"*.txt": "deny"}`)
    const r = binaryRepo({ "a.txt": "alpha\n" }, { permission: { Read: { "a.txt": "deny" } } })
    const out = await binaryTool(r, "grep", { pattern: "alpha" })
    expect(out.envelope.status).toBe("success")
    expect(out.envelope.text).not.toContain("a.txt")
  })

  test("an MCP tool's key in another case, and mcp__SERVER for all its tools (a tool's own key still wins)", async () => {
    await denied({ mcp__TINY__Echo: "deny" }, "mcp__tiny__echo", { message: "x" }, `"mcp__TINY__Echo": "deny"`)
    await denied({ mcp__tiny: "deny" }, "mcp__tiny__echo", { message: "x" }, `"mcp__tiny": "deny"`)
    await denied({ "MCP__tiny__*": "deny" }, "mcp__tiny__echo", { message: "x" }, `"MCP__tiny__*": "deny"`)
    const own = binaryRepo({}, { mcpServers: { tiny: server }, permission: { mcp__tiny: "deny", mcp__tiny__echo: "allow" } })
    expect((await binaryTool(own, "mcp__tiny__echo", { message: "x" })).envelope.text).toContain("echo: x")
    // A key that only begins like the server's name covers nothing of it.
    const other = binaryRepo({}, { mcpServers: { tiny: server }, permission: { mcp__ti: "deny" } })
    expect((await binaryTool(other, "mcp__tiny__echo", { message: "x" })).envelope.status).toBe("success")
  })
})

describe("--allow in Claude Code's forms", () => {
  const run = async (allow: ReadonlyArray<string>, command: string) => {
    // Confined commands would run unasked: here bash asks, so only --allow lets it run.
    const r = binaryRepo({ "a.txt": "alpha\n" }, { sandbox: { auto_allow: false } })
    const server = fakeOpenAI([{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "done" }])
    try {
      const flags = allow.flatMap((a) => ["--allow", a])
      const out = await runBinary(["run", "--model", "openai/gpt-test", "--format", "json", ...flags, "go"], {
        cwd: r.root,
        env: { ...r.env, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      return { ...out, root: r.root, result: JSON.stringify(server.requests.at(-1)?.body.messages.at(-1) ?? {}) }
    } finally {
      server.stop()
    }
  }

  test("Claude's tool names (any case) are tools, and Bash(PREFIX:*) approves the commands that start so", async () => {
    const ran = await run(["Bash(touch:*)", "WebFetch", "LS", "webfetch:example.com"], "touch made.txt")
    expect(ran.stderr).not.toContain("names no tool")
    expect(ran.code).toBe(0)
    expect(ran.result).not.toContain("PERMISSION_DENIED")
    expect(existsSync(join(ran.root, "made.txt"))).toBe(true)
    // The prefix approves only what starts with it.
    const refused = await run(["Bash(touch:*)"], "rm a.txt")
    expect(refused.result).toContain("PERMISSION_DENIED")
    expect(existsSync(join(refused.root, "a.txt"))).toBe(true)
  })
})
