import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { query, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"
import { base, collect, model, resultOf, stopServers } from "./sdk-support.ts"

// The SDK's controls and outcomes beyond the basic turn, as Claude Code gives them: sandboxed commands and
// allowedTools, API errors, getContextUsage(), setMaxThinkingTokens().
setDefaultTimeout(60_000)

afterAll(stopServers)
beforeAll(() => void anvilBinary(), 120_000)

/** A model that runs `echo allowed`, then `touch other.txt`, then answers. */
const echoThenTouch = () =>
  model([
    { tool_calls: [{ name: "Bash", arguments: { command: "echo allowed" }, id: "e1" }] },
    { tool_calls: [{ name: "Bash", arguments: { command: "touch other.txt" }, id: "t1" }] },
    { text: "Done." },
  ])

describe("allowedTools and the sandbox", () => {
  test("allowedTools: ['Bash(echo:*)'] alone lets echo run and denies other commands, sandboxed or not", async () => {
    const root = project({})
    const { env } = echoThenTouch()
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), allowedTools: ["Bash(echo:*)"] } }))
    const result = resultOf(messages) as any
    expect(result.permission_denials.map((d: any) => [d.tool_name, d.tool_input.command])).toEqual([["Bash", "touch other.txt"]])
    expect(existsSync(join(root, "other.txt"))).toBe(false)
    const echoed = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "e1") as any
    expect(String(echoed.content)).toContain("allowed")
  })

  test("sandbox: {enabled, autoAllowBashIfSandboxed} lets every sandboxed command run without asking, as in Claude Code", async () => {
    const root = project({})
    const { env } = echoThenTouch()
    const asked: Array<string> = []
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          allowedTools: ["Bash(echo:*)"],
          sandbox: { enabled: true, autoAllowBashIfSandboxed: true },
          canUseTool: async (tool, input) => {
            asked.push(String(input.command))
            return { behavior: "deny", message: "no" }
          },
        },
      }),
    )
    expect((resultOf(messages) as any).permission_denials).toEqual([])
    expect(existsSync(join(root, "other.txt"))).toBe(true)
    expect(asked).toEqual([])
    // The settings anvil does not act on are named; the sandbox ones it reads are not.
    const ignored = messages.find((m: any) => m.type === "system" && m.subtype === "ignored_flags") as any
    expect(JSON.stringify(ignored?.flags ?? [])).not.toContain("--settings")
  })
})

describe("an API error", () => {
  test("is a synthetic assistant message with the error's kind, then a success result with is_error and api_error_status", async () => {
    const root = project({})
    const { env } = model([{ status: 401, error_body: '{"error":{"message":"invalid api key"}}' }])
    const messages = await collect(query({ prompt: "hi", options: base(root, env) }))
    const assistant = messages.find((m) => m.type === "assistant") as any
    expect(assistant.error).toBe("authentication_failed")
    expect(assistant.message.model).toBe("<synthetic>")
    const result = resultOf(messages) as any
    expect(result).toMatchObject({ subtype: "success", is_error: true, api_error_status: 401, terminal_reason: "api_error" })
    expect(result.result).toContain("invalid api key")
  })
})

describe("getContextUsage() and setMaxThinkingTokens()", () => {
  test("before the first message: the system prompt, tool schemas and instruction files are counted, no messages; the turn then runs as usual", async () => {
    const root = project({ "AGENTS.md": `# Rules\n${"Keep it short. ".repeat(200)}\n` })
    const { env, server } = model([{ text: "Hello." }])
    let asked: () => void = () => {}
    const answered = new Promise<void>((r) => (asked = r))
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      await answered
      yield { type: "user", message: { role: "user", content: "say hello" }, parent_tool_use_id: null, session_id: "" }
    }
    const q = query({ prompt: prompts(), options: base(root, env) })
    const usage = await q.getContextUsage()
    asked()
    const messages = await collect(q)
    const row = (id: string) => usage.categories.find((c) => c.id === id)!
    expect(usage.model).toBe("openai/gpt-test")
    expect(row("system_prompt").tokens).toBeGreaterThan(0)
    expect(row("system_tools").tokens).toBeGreaterThan(1000)
    expect(usage.systemTools?.map((t) => t.name)).toContain("bash")
    expect(row("messages").tokens).toBe(0)
    expect(usage.memoryFiles.map((f) => f.path)).toEqual(["AGENTS.md"])
    expect(usage.apiUsage).toBeNull()
    expect(usage.totalTokens).toBe(usage.categories.filter((c) => c.kind === "used").reduce((n, c) => n + c.tokens, 0))
    // No model request was needed to answer; the session opened once and was announced once, by the turn.
    expect(server.requests.length).toBe(1)
    expect(messages.filter((m: any) => m.type === "system" && m.subtype === "init").length).toBe(1)
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" })
    expect((resultOf(messages) as any).result).toBe("Hello.")
  })

  test("the context's parts after a turn: the prompt, the instruction files, the tools offered and deferred, the messages", async () => {
    const root = project({ "AGENTS.md": `# Rules\n${"Keep it short. ".repeat(200)}\n` })
    const { env } = model([{ text: "Hello." }])
    let release: () => void = () => {}
    const done = new Promise<void>((r) => (release = r))
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      yield { type: "user", message: { role: "user", content: "say hello" }, parent_tool_use_id: null, session_id: "" }
      await done
    }
    const q = query({ prompt: prompts(), options: base(root, env) })
    const messages: Array<SDKMessage> = []
    let usage: Awaited<ReturnType<typeof q.getContextUsage>> | undefined
    let thinking: Array<string> = []
    for await (const m of q) {
      messages.push(m)
      if (m.type !== "result") continue
      usage = await q.getContextUsage()
      await q.setMaxThinkingTokens(2048)
      thinking = await Promise.all([q.setMaxThinkingTokens(null, "highlights").then(() => "resolved", (e) => String(e))])
      release()
    }
    const row = (id: string) => usage!.categories.find((c) => c.id === id)!
    expect(usage!.model).toBe("openai/gpt-test")
    expect(row("system_prompt").tokens).toBeGreaterThan(0)
    expect(row("system_tools").tokens).toBeGreaterThan(0)
    expect(row("messages").tokens).toBeGreaterThan(0)
    expect(row("free_space").kind).toBe("free")
    expect(usage!.memoryFiles.map((f) => f.path)).toEqual(["AGENTS.md"])
    // AGENTS.md is about 2,800 characters: some 700 tokens.
    expect(usage!.memoryFiles[0]!.tokens).toBeGreaterThan(600)
    expect(usage!.totalTokens).toBe(usage!.categories.filter((c) => c.kind === "used").reduce((n, c) => n + c.tokens, 0))
    expect(usage!.percentage).toBe(Math.round((usage!.totalTokens / usage!.maxTokens) * 100))
    expect(usage!.gridRows.length).toBe(10)
    expect(usage!.apiUsage).not.toBeNull()
    // A display the API has no place for is refused; the budget itself is applied (sdk-host-thinking.test.ts), with no notice.
    expect(thinking[0]).toContain("highlights")
    const notice = messages.find((m: any) => m.type === "system" && m.subtype === "notice" && String(m.message).includes("set_max_thinking_tokens"))
    expect(notice).toBeUndefined()
  })
})

describe("canUseTool's deny with interrupt: true", () => {
  test("the call's result is the program's message, listed as a denial, then the turn ends", async () => {
    const root = project({})
    const { env, server } = model([{ tool_calls: [{ name: "Bash", arguments: { command: "touch x.txt" }, id: "b1" }] }, { text: "never" }])
    const messages = await collect(
      query({ prompt: "go", options: { ...base(root, env), canUseTool: async () => ({ behavior: "deny", message: "Stop: not in this repository.", interrupt: true }) } }),
    )
    const result = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "b1") as any
    expect(result.is_error).toBe(true)
    expect(String(result.content)).toContain("Stop: not in this repository.")
    expect(String(result.content)).not.toContain("CANCELLED")
    const end = resultOf(messages) as any
    expect(end.permission_denials).toEqual([{ tool_name: "Bash", tool_use_id: "b1", tool_input: { command: "touch x.txt" } }])
    // The turn ended at the denial: the model was not asked again, and nothing ran.
    expect(server.requests.length).toBe(1)
    expect(existsSync(join(root, "x.txt"))).toBe(false)
  })
})
