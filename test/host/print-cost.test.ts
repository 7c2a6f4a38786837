import { describe, expect, test } from "bun:test"
import { runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { printFakes } from "../support/print-fakes.ts"
import { project } from "../support/harness.ts"

// What `claude -p` (and so an Agent SDK program) is told a session cost: prompt-cache tokens priced at their own
// rates, and the two limits (turns, budget) told apart by subtype and exit code. Through the compiled binary,
// against fake model servers on 127.0.0.1 that report cache usage.
const { servers, home, anthropic } = printFakes()
const json = (args: ReadonlyArray<string>, env: Record<string, string>) => runBinary(["-p", "hi", "--output-format", "json", ...args], { cwd: project({}), env })
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-9)

describe("prompt-cache tokens in total_cost_usd and modelUsage", () => {
  test("Anthropic: cache reads at 0.1x the input price, 5-minute writes at 1.25x, 1-hour writes at 2x; usage splits them as Claude does", async () => {
    // Sonnet, $3 in / $15 out: 100k uncached ($0.30), 1M read ($0.30), 200k written ($0.75), 10k out ($0.15) = $1.50.
    const first = { input_tokens: 100_000, cache_read_input_tokens: 1_000_000, cache_creation_input_tokens: 200_000, output_tokens: 10_000 }
    // 100k kept five minutes ($0.375), 100k an hour ($0.60), 1k out ($0.015): $0.99.
    const second = { input_tokens: 0, cache_creation_input_tokens: 200_000, cache_creation: { ephemeral_5m_input_tokens: 100_000, ephemeral_1h_input_tokens: 100_000 }, output_tokens: 1000 }
    const { env } = anthropic([{ tool_calls: [{ name: "list", arguments: {} }], usage: first }, { text: "done", usage: second }])
    const r = await json(["--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions"], env)
    const result = JSON.parse(r.stdout)
    expect(r.code).toBe(0)
    close(result.total_cost_usd, 1.5 + 0.99)
    expect(result.usage).toMatchObject({ input_tokens: 100_000, cache_read_input_tokens: 1_000_000, cache_creation_input_tokens: 400_000, output_tokens: 11_000 })
    const row = result.modelUsage["anthropic/claude-sonnet-4-5"]
    expect(row).toMatchObject({ inputTokens: 100_000, cacheReadInputTokens: 1_000_000, cacheCreationInputTokens: 400_000, outputTokens: 11_000 })
    close(row.costUSD, 2.49)
  })

  test("each assistant message's usage carries its own cache counts (stream-json)", async () => {
    const usage = { input_tokens: 12, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500, output_tokens: 7 }
    const { env } = anthropic([{ text: "cached", usage }])
    const r = await runBinary(["-p", "hi", "--output-format", "stream-json", "--verbose", "--model", "claude-haiku-4-5"], { cwd: project({}), env })
    const assistant = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.type === "assistant")
    expect(assistant.message.usage).toEqual({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500 })
  })

  test("cache reads that would pass the budget at the input price stay under it at the cache price", async () => {
    // 2M tokens read from the cache of Sonnet: $0.60 (at the full input price it would be $6, over the $1 budget).
    const { server, env } = anthropic([{ tool_calls: [{ name: "list", arguments: {} }], usage: { input_tokens: 10, cache_read_input_tokens: 2_000_000, output_tokens: 10 } }, { text: "done" }])
    const r = await json(["--model", "claude-sonnet-4-5", "--max-budget-usd", "1", "--permission-mode", "bypassPermissions"], env)
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: "done" })
    expect(server.requests.length).toBe(2)
    expect(r.code).toBe(0)
  })

  test("OpenAI: prompt_tokens_details.cached_tokens are priced at the model's cached-input price", async () => {
    // GPT-4.1, $2 in / $0.50 cached / $8 out: 200k uncached ($0.40), 800k cached ($0.40), 100k out ($0.80) = $1.60.
    const server = fakeOpenAI([{ text: "done", usage: { input_tokens: 200_000, cache_read_input_tokens: 800_000, output_tokens: 100_000 } }])
    servers.push(server)
    const r = await json(["--model", "openai/gpt-4.1"], { HOME: home(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" })
    const result = JSON.parse(r.stdout)
    close(result.total_cost_usd, 1.6)
    expect(result.usage).toMatchObject({ input_tokens: 200_000, cache_read_input_tokens: 800_000, cache_creation_input_tokens: 0 })
  })
})

describe("the turn limit and the budget are told apart", () => {
  test("--max-turns: subtype error_max_turns, exit code 6; --max-budget-usd: error_max_budget_usd, exit code 9", async () => {
    const turns = { tool_calls: [{ name: "list", arguments: {} }], usage: { input_tokens: 10, output_tokens: 10 } }
    const limited = anthropic([turns, turns, { text: "never" }])
    const t = await json(["--model", "claude-haiku-4-5", "--max-turns", "1", "--permission-mode", "bypassPermissions"], limited.env)
    expect(JSON.parse(t.stdout)).toMatchObject({ subtype: "error_max_turns", is_error: true, reason: "max_steps", exit_code: 6 })
    expect(t.code).toBe(6)
    // Haiku 4.5, $1 per million in: 2M uncached is $2, over a $1 budget.
    const spent = anthropic([{ ...turns, usage: { input_tokens: 2_000_000, output_tokens: 0 } }, { text: "never" }])
    const b = await json(["--model", "claude-haiku-4-5", "--max-budget-usd", "1", "--permission-mode", "bypassPermissions"], spent.env)
    expect(JSON.parse(b.stdout)).toMatchObject({ subtype: "error_max_budget_usd", is_error: true, reason: "max_budget", exit_code: 9 })
    expect(b.code).toBe(9)
  })
})
