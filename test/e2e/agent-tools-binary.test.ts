import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import type { FakeTurn } from "../support/fake-model.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

// A custom agent's `tools` and `disallowedTools` limit an MCP server's tools as they limit the built-in ones (Claude
// Code's subagent fields): an agent given `tools: Read` has no MCP tool either.

const agent = (name: string, fields: string) => `---\nname: ${name}\ndescription: Agent ${name}.\n${fields}---\nYou help.\n`
const task = (name: string): FakeTurn => ({ tool_calls: [{ name: "task", arguments: { agent: name, objective: "go" } }] })
const echo = (message: string): FakeTurn => ({ tool_calls: [{ name: "mcp__tiny__echo", arguments: { message } }] })

describe("a custom agent's tool list, through the binary", () => {
  test("tools and disallowedTools limit an MCP server's tools (by the tool's name, or the server's for all of them)", async () => {
    const home = tempDir("anvil-home-")
    const tiny = { command: process.execPath, args: [join(import.meta.dir, "..", "mcp", "tiny-server.ts")], permission: "allow" }
    writeTree(home, {
      ".claude/agents/reader.md": agent("reader", "tools: Read, Grep\n"),
      ".claude/agents/echoer.md": agent("echoer", "tools: Read, mcp__tiny\n"),
      ".claude/agents/quiet.md": agent("quiet", "disallowedTools: mcp__tiny__echo\n"),
      ".config/anvil/anvil.json": JSON.stringify({ mcpServers: { tiny } }),
    })
    const script = [task("reader"), echo("r"), { text: "r done" }, task("echoer"), echo("e"), { text: "e done" }, task("quiet"), echo("q"), { text: "q done" }, { text: "done" }]
    const server = fakeOpenAI(script)
    try {
      const out = await runBinary(["run", "--model", "openai/gpt-test", "go"], {
        cwd: project(),
        env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      expect(out.code).toBe(0)
      // What each subagent's call came back as: the request after it carries its result last.
      const result = (i: number) => JSON.stringify(server.requests[i]!.body.messages.at(-1))
      expect(result(2)).not.toContain("echo: r")
      expect(result(2)).toContain("Code: PERMISSION_DENIED")
      expect(result(2)).toContain("The agent 'reader' may not call mcp__tiny__echo: its front matter's tools list does not name it.")
      expect(result(5)).toContain("echo: e")
      expect(result(8)).not.toContain("echo: q")
      expect(result(8)).toContain("The agent 'quiet' may not call mcp__tiny__echo: its front matter's disallowedTools names it.")
      // Only the allowed agent is offered the tool.
      const offered = (i: number) => JSON.stringify(server.requests[i]!.body.tools ?? [])
      expect(offered(1)).not.toContain("mcp__tiny__echo")
      expect(offered(4)).toContain("mcp__tiny__echo")
    } finally {
      server.stop()
    }
  })
})
