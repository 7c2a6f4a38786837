import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// Some OpenAI-compatible servers give two calls of one reply the same id, or reuse an earlier reply's: every call
// still runs, and each gets an id of its own (the first free `<id>_<n>`), so the next request pairs every result with
// its call and the providers that demand unique ids accept it.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

describe("tool calls whose ids repeat", () => {
  test("are all run, renamed deterministically, and sent back with unique ids paired with their results", async () => {
    const server = fakeOpenAI([
      { tool_calls: [{ id: "call_0", name: "list", arguments: {} }, { id: "call_0", name: "read", arguments: { path: "a.txt" } }] },
      { tool_calls: [{ id: "call_0", name: "read", arguments: { path: "b.txt" } }] },
      { text: "done" },
    ])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const out = await runAnvil(["run", "-f", "stream-json", "--yes", "look"], { cwd: project({ "a.txt": "alpha\n", "b.txt": "beta\n" }), env })
    const lines = jsonLines(out.stdout)
    const uses = lines.filter((m) => m.type === "assistant").flatMap((m) => m.message.content.filter((c: any) => c.type === "tool_use").map((c: any) => [c.id, c.name]))
    expect(uses).toEqual([["call_0", "list"], ["call_0_2", "read"], ["call_0_3", "read"]])
    const results = lines.filter((m) => m.type === "user").map((m) => m.message.content[0].tool_use_id)
    expect(results).toEqual(["call_0", "call_0_2", "call_0_3"])
    expect(lines.at(-1)).toMatchObject({ type: "result", is_error: false, result: "done" })

    const last = server.requests[2]!.body.messages as Array<any>
    const sentCalls = last.filter((m) => m.role === "assistant" && m.tool_calls).flatMap((m) => m.tool_calls.map((c: any) => c.id))
    expect(sentCalls).toEqual(["call_0", "call_0_2", "call_0_3"])
    const sentResults = last.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content.split("\n")[0]])
    expect(sentResults).toEqual([["call_0", "# LS: ."], ["call_0_2", "# Read: a.txt"], ["call_0_3", "# Read: b.txt"]])
  })
})
