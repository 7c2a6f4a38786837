import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// A call under Claude Code's tool names with Claude's fields gets the same answer on every path: one tool at a
// time, a model's native call and a ReAct action all go through the one translation in the tool pipeline.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
beforeAll(() => void anvilBinary(), 120_000)

const FILE = { "f.txt": "l1\nl2\nl3\nl4\n" }

describe("Claude-style calls through the binary", () => {
  test("anvil tool: Read's offset is the first line shown, Grep is case-sensitive unless -i; anvil's own names and fields keep anvil's meaning", async () => {
    const root = project(FILE)
    const data = async (name: string, params: object) => {
      const r = await runBinary(["tool", name, JSON.stringify(params)], { cwd: root })
      return JSON.parse(r.stdout).data
    }
    expect((await data("Read", { file_path: "f.txt", offset: 2, limit: 1 })).content).toBe("     2\tl2")
    expect((await data("read", { path: "f.txt", offset: 2, limit: 1 })).content).toBe("     3\tl3")
    expect((await data("Read", { path: "f.txt", offset: 2, limit: 1 })).content).toBe("     3\tl3")
    expect((await data("Grep", { pattern: "L2" })).total_matches).toBe(0)
    expect((await data("Grep", { pattern: "L2", "-i": true })).total_matches).toBe(1)
    expect((await data("grep", { pattern: "L2" })).total_matches).toBe(1)
    // Claude's todo items carry activeForm, which anvil's list has no field for.
    const todos = await data("TodoWrite", { todos: [{ content: "ship it", status: "in_progress", activeForm: "Shipping it" }] })
    expect(todos.todos).toMatchObject([{ content: "ship it", status: "in_progress" }])
  })

  test("anvil run: a model's native Read call and a ReAct Read action show the same line as anvil tool Read", async () => {
    const root = project(FILE)
    const call = { file_path: "f.txt", offset: 2, limit: 1 }
    const server = fakeOpenAI([{ tool_calls: [{ name: "Read", arguments: call, id: "c1" }] }, { text: "done" }])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const native = await runBinary(["run", "--format", "stream-json", "read it"], { cwd: root, env })
    expect(native.code).toBe(0)
    const results = toolResults(jsonLines(native.stdout))
    expect(results[0]!.envelope.data.content).toBe("     2\tl2")

    const react = fakeOpenAI([{ text: `Thought: read it\nAction: Read\nAction Input: ${JSON.stringify(call)}` }, { text: "Thought: done\nFinal Answer: done" }])
    servers.push(react)
    const r = await runBinary(["run", "--engine", "react", "--format", "stream-json", "read it"], { cwd: root, env: { ...env, OPENAI_BASE_URL: react.url } })
    expect(r.code).toBe(0)
    expect(toolResults(jsonLines(r.stdout))[0]!.envelope.data.content).toBe("     2\tl2")
  })
})
