import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { query, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import { anvilBinary } from "../support/binary.ts"
import { fakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { project } from "../support/harness.ts"
import { base, collect, model, resultOf, stopServers } from "./sdk-support.ts"

// Extended thinking asked for through the Agent SDK reaches the model's request, and the model's thinking comes back
// in the SDK's assistant messages, as Claude Code gives them.
setDefaultTimeout(60_000)

const anthropics: Array<FakeServer> = []
afterAll(() => {
  stopServers()
  anthropics.splice(0).forEach((s) => s.stop())
})
beforeAll(() => void anvilBinary(), 120_000)

/** A fake Anthropic server answering `turns`, and the options that point anvil at it. */
const anthropic = (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeAnthropic(turns)
  anthropics.push(server)
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: project({}), ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test" }
  return { server, env }
}

/** Two user messages, the second sent when `release` is called (after the first turn's result). */
const twoPrompts = () => {
  let release: () => void = () => {}
  const second = new Promise<void>((r) => (release = r))
  async function* prompts(): AsyncGenerator<SDKUserMessage> {
    yield { type: "user", message: { role: "user", content: "first" }, parent_tool_use_id: null, session_id: "" }
    await second
    yield { type: "user", message: { role: "user", content: "second" }, parent_tool_use_id: null, session_id: "" }
  }
  return { prompts, release: () => release() }
}

const blocksOf = (messages: ReadonlyArray<SDKMessage>) =>
  messages.flatMap((m) => (m.type === "assistant" ? (m.message.content as Array<any>) : [])).filter((b) => b.type === "thinking")

describe("extended thinking through the Agent SDK", () => {
  test("Anthropic: thinking {type: enabled, budgetTokens} asks for the budget; each signed thinking block is in the assistant message and goes back with its turn", async () => {
    const root = project({})
    const { server, env } = anthropic([
      { thinking: "Let me list the files.", tool_calls: [{ name: "Bash", arguments: { command: "echo listed" }, id: "b1" }] },
      { thinking: "The list is in.", text: "Done." },
    ])
    const messages = await collect(
      query({ prompt: "go", options: { ...base(root, env), model: "anthropic/claude-test", permissionMode: "bypassPermissions", thinking: { type: "enabled", budgetTokens: 2048 } } }),
    )
    expect((resultOf(messages) as any).result).toBe("Done.")
    const first = server.requests[0]!.body
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
    expect(first.max_tokens).toBeGreaterThan(2048)
    expect(first.temperature).toBeUndefined()
    // The turn that called the tool is sent back with its thinking block first, signature and all.
    const assistant = server.requests[1]!.body.messages.find((m: any) => m.role === "assistant")
    expect(assistant.content[0]).toEqual({ type: "thinking", thinking: "Let me list the files.", signature: "sig-1" })
    expect(assistant.content[1]).toMatchObject({ type: "tool_use", id: "b1" })
    expect(blocksOf(messages)).toEqual([
      { type: "thinking", thinking: "Let me list the files.", signature: "sig-1" },
      { type: "thinking", thinking: "The list is in.", signature: "sig-2" },
    ])
    // Thinking comes before the text in the message that answers.
    const last = messages.filter((m) => m.type === "assistant").at(-1) as any
    expect(last.message.content.map((b: any) => b.type)).toEqual(["thinking", "text"])
  })

  test("adaptive thinking, and none at all", async () => {
    const root = project({})
    const adaptive = anthropic([{ thinking: "Hm.", text: "Yes." }])
    await collect(query({ prompt: "go", options: { ...base(root, adaptive.env), model: "anthropic/claude-test", thinking: { type: "adaptive" } } }))
    expect(adaptive.server.requests[0]!.body.thinking).toEqual({ type: "adaptive" })
    const off = anthropic([{ text: "No." }])
    await collect(query({ prompt: "go", options: { ...base(root, off.env), model: "anthropic/claude-test", thinking: { type: "disabled" } } }))
    expect(off.server.requests[0]!.body.thinking).toBeUndefined()
  })

  test("includePartialMessages: the thinking streams as a thinking block of its own, then the text as the next block", async () => {
    const root = project({})
    const { env } = model([{ thinking: "Weighing it.", text: "Answer." }])
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), includePartialMessages: true, maxThinkingTokens: 1024 } }))
    const events = messages.flatMap((m: any) => (m.type === "stream_event" ? [m.event] : []))
    const starts = events.filter((e) => e.type === "content_block_start").map((e) => [e.index, e.content_block.type])
    expect(starts).toEqual([[0, "thinking"], [1, "text"]])
    const deltas = (i: number) => events.filter((e) => e.type === "content_block_delta" && e.index === i).map((e) => e.delta.thinking ?? e.delta.text).join("")
    expect([deltas(0), deltas(1)]).toEqual(["Weighing it.", "Answer."])
    expect(events.map((e) => e.type).filter((t) => t === "content_block_stop" || t === "message_stop")).toEqual(["content_block_stop", "content_block_stop", "message_stop"])
  })

  test("OpenAI-compatible: maxThinkingTokens is a reasoning effort, reasoning_content a thinking block; setMaxThinkingTokens(0) turns it off for the next request", async () => {
    const root = project({})
    const { server, env } = model([{ thinking: "Thinking it over.", text: "One." }, { text: "Two." }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts(), options: { ...base(root, env), maxThinkingTokens: 20_000 } })
    const messages: Array<SDKMessage> = []
    for await (const m of q) {
      messages.push(m)
      if (m.type !== "result") continue
      if (server.requests.length === 1) {
        await q.setMaxThinkingTokens(0)
        release()
      } else break
    }
    expect(server.requests[0]!.body.reasoning_effort).toBe("high")
    expect(server.requests[1]!.body.reasoning_effort).toBeUndefined()
    // Shown, never sent back: OpenAI-compatible servers refuse reasoning in a request.
    expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("Thinking it over.")
    expect(blocksOf(messages)).toEqual([{ type: "thinking", thinking: "Thinking it over.", signature: "" }])
  })

  test("thinking display: Anthropic is asked for it (display: omitted), an OpenAI-compatible server's reasoning is left out; setMaxThinkingTokens changes it for the next request", async () => {
    const root = project({})
    const claude = anthropic([{ text: "Done." }])
    await collect(query({ prompt: "go", options: { ...base(root, claude.env), model: "anthropic/claude-test", thinking: { type: "enabled", budgetTokens: 2048, display: "omitted" } } }))
    expect(claude.server.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048, display: "omitted" })
    const { server, env } = model([{ thinking: "Hidden reasoning.", text: "One." }, { thinking: "Shown reasoning.", text: "Two." }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts(), options: { ...base(root, env), includePartialMessages: true, thinking: { type: "adaptive", display: "omitted" } } })
    const messages: Array<SDKMessage> = []
    for await (const m of q) {
      messages.push(m)
      if (m.type !== "result") continue
      if (server.requests.length === 1) {
        await q.setMaxThinkingTokens(null, "summarized")
        release()
      } else break
    }
    // The block is there, without its text (as Anthropic's API answers omitted), and no thinking text streams.
    expect(blocksOf(messages)).toEqual([
      { type: "thinking", thinking: "", signature: "" },
      { type: "thinking", thinking: "Shown reasoning.", signature: "" },
    ])
    expect(JSON.stringify(messages)).not.toContain("Hidden reasoning")
  })
})
