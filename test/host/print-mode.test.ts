import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Claude Code's print mode (`anvil -p …` with its flags) through the compiled binary.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
beforeAll(() => void anvilBinary(), 120_000)

describe("print mode", () => {
  test("--system-prompt replaces the prompt; a plugin's SessionStart output still reaches the model, as context before the prompt", async () => {
    const root = project({})
    const plugin = tempDir("anvil-print-plugin-")
    writeTree(plugin, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "starter" }),
      "hooks/hooks.json": JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo PLUGIN-START-MARK" }] }] } }),
    })
    const server = fakeOpenAI([{ text: "ok" }])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
    const r = await runBinary(["-p", "hello", "--model", "openai/gpt-test", "--system-prompt", "You are terse.", "--plugin-dir", plugin, "--output-format", "json"], { cwd: root, env })
    expect(JSON.parse(r.stdout).result).toBe("ok")
    const sent = server.requests[0]!.body.messages
    expect(sent[0]).toEqual({ role: "system", content: "You are terse." })
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user", "user"])
    expect(sent[1].content).toContain("PLUGIN-START-MARK")
    expect(sent[2].content).toBe("hello")
  })
})
