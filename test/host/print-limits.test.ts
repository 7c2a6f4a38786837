import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import type { FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { printFakes } from "../support/print-fakes.ts"
import { project, tempDir } from "../support/harness.ts"

// Claude Code's --fallback-model, --max-budget-usd and --add-dir (the Agent SDK's fallbackModel, maxBudgetUsd and
// additionalDirectories) through the compiled binary, against fake model servers on 127.0.0.1.
const { servers, home, anthropic } = printFakes()
const overloaded: FakeTurn = { status: 529, error_body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) }
const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l))
const stream = ["--output-format", "stream-json", "--verbose"]
const userLine = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`

describe("--fallback-model", () => {
  test("three overloaded answers in a row hand the request to the fallback model, which answers; the next turn starts on the main model again", async () => {
    const { server, env } = anthropic([overloaded, overloaded, overloaded, { text: "from the fallback" }, { text: "main again" }])
    const r = await runBinary(["-p", "--input-format", "stream-json", ...stream, "--model", "claude-opus-4-1", "--fallback-model", "claude-sonnet-4-5"], {
      cwd: project({}),
      env,
      stdin: userLine("one") + userLine("two"),
    })
    const models = server.requests.map((q) => q.body.model)
    expect(models).toEqual(["claude-opus-4-1", "claude-opus-4-1", "claude-opus-4-1", "claude-sonnet-4-5", "claude-opus-4-1"])
    const out = lines(r.stdout)
    const fallback = out.find((m) => m.subtype === "model_fallback")
    expect(fallback).toMatchObject({ type: "system", model: "anthropic/claude-opus-4-1", fallback_model: "anthropic/claude-sonnet-4-5" })
    expect(fallback.error).toContain("529")
    // Two retries were announced; the third overloaded answer went to the fallback instead of a third retry.
    expect(out.filter((m) => m.subtype === "api_retry").length).toBe(2)
    const answers = out.filter((m) => m.type === "assistant").map((m) => [m.message.model, m.message.content[0].text])
    expect(answers).toEqual([
      ["anthropic/claude-sonnet-4-5", "from the fallback"],
      ["anthropic/claude-opus-4-1", "main again"],
    ])
    expect(out.filter((m) => m.type === "result").map((m) => m.subtype)).toEqual(["success", "success"])
  })

  test("an unavailable model (HTTP 404) falls back at once; a comma-separated list is tried in order", async () => {
    const missing: FakeTurn = { status: 404, error_body: JSON.stringify({ type: "error", error: { type: "not_found_error", message: "model: nope" } }) }
    const { server, env } = anthropic([missing, missing, { text: "third answers" }])
    const r = await runBinary(["-p", "hi", "--output-format", "json", "--model", "claude-nope", "--fallback-model", "claude-gone,claude-haiku-4-5"], { cwd: project({}), env })
    expect(server.requests.map((q) => q.body.model)).toEqual(["claude-nope", "claude-gone", "claude-haiku-4-5"])
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: "third answers" })
    expect(r.code).toBe(0)
  })

  test("a rate limit (429) is only retried, never a reason to change models; without --fallback-model an overloaded model is retried to the end", async () => {
    const limited = anthropic([{ status: 429 }, { text: "main answers" }])
    const r = await runBinary(["-p", "hi", "--output-format", "json", "--model", "claude-opus-4-1", "--fallback-model", "claude-sonnet-4-5"], { cwd: project({}), env: limited.env })
    expect(limited.server.requests.map((q) => q.body.model)).toEqual(["claude-opus-4-1", "claude-opus-4-1"])
    expect(JSON.parse(r.stdout).result).toBe("main answers")
    const alone = anthropic([overloaded, overloaded, overloaded, overloaded, { text: "fifth try" }])
    const a = await runBinary(["-p", "hi", "--output-format", "json", "--model", "claude-opus-4-1"], { cwd: project({}), env: alone.env })
    expect(alone.server.requests.length).toBe(5)
    expect(JSON.parse(a.stdout).result).toBe("fifth try")
  })

  test("the fallback may not be the main model: a usage error, as Claude Code refuses it", async () => {
    const r = await runBinary(["-p", "hi", "--model", "claude-opus-4-1", "--fallback-model", "claude-opus-4-1"], { cwd: project({}), env: { HOME: home() } })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--fallback-model cannot be the same as the main model")
  })
})

describe("--max-budget-usd", () => {
  test("a reply that passes the budget ends the run with error_max_budget_usd, its tool calls not run; the cost is priced from the usage", async () => {
    // 1M input tokens of Sonnet ($3) and 100k output tokens ($1.50): $4.50, over a $1 budget.
    const { server, env } = anthropic([{ tool_calls: [{ name: "write", arguments: { path: "made.txt", content: "x" } }], usage: { input_tokens: 1_000_000, output_tokens: 100_000 } }])
    const root = project({})
    const r = await runBinary(["-p", "write it", "--output-format", "json", "--model", "claude-sonnet-4-5", "--max-budget-usd", "1", "--permission-mode", "bypassPermissions"], { cwd: root, env })
    const result = JSON.parse(r.stdout)
    expect(result).toMatchObject({ subtype: "error_max_budget_usd", is_error: true, reason: "max_budget", total_cost_usd: 4.5 })
    expect(result.errors[0]).toContain("Reached maximum budget ($1)")
    expect(result.modelUsage["anthropic/claude-sonnet-4-5"]).toMatchObject({ inputTokens: 1_000_000, outputTokens: 100_000, costUSD: 4.5 })
    expect(r.code).toBe(9)
    expect(server.requests.length).toBe(1)
    expect(existsSync(join(root, "made.txt"))).toBe(false)
  })

  test("the spend is the session's: turns add up, and a turn that starts over the budget sends nothing", async () => {
    // Haiku 4.5 at $1 / $5 per million: 1,000 in and 100 out is $0.0015 a reply.
    const usage = { input_tokens: 1000, output_tokens: 100 }
    const { server, env } = anthropic([{ text: "a", usage }, { text: "b", usage }, { text: "c", usage }])
    const r = await runBinary(["-p", "--input-format", "stream-json", ...stream, "--model", "claude-haiku-4-5", "--max-budget-usd", "0.002"], {
      cwd: project({}),
      env,
      stdin: userLine("one") + userLine("two") + userLine("three"),
    })
    const results = lines(r.stdout).filter((m) => m.type === "result")
    expect(results.map((m) => m.subtype)).toEqual(["success", "error_max_budget_usd", "error_max_budget_usd"])
    expect(results.map((m) => m.total_cost_usd)).toEqual([0.0015, 0.003, 0.003])
    expect(server.requests.length).toBe(2)
  })

  test("a model anvil cannot price is said once, and the run goes on to its answer", async () => {
    const server = fakeOpenAI([{ text: "first", usage: { input_tokens: 10_000_000, output_tokens: 10 } }, { text: "second" }])
    servers.push(server)
    const env = { HOME: home(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
    const r = await runBinary(["-p", "--input-format", "stream-json", ...stream, "--model", "openai/local-thing", "--max-budget-usd", "0.01"], {
      cwd: project({}),
      env,
      stdin: userLine("one") + userLine("two"),
    })
    const out = lines(r.stdout)
    expect(out.filter((m) => m.type === "result").map((m) => [m.subtype, m.total_cost_usd])).toEqual([
      ["success", 0],
      ["success", 0],
    ])
    const said = out.filter((m) => JSON.stringify(m).includes("price of openai/local-thing is not known"))
    expect(said.length).toBe(1)
    expect(r.stderr.split("price of openai/local-thing is not known").length - 1).toBe(1)
  })

  test("an amount that is not a positive number is a usage error", async () => {
    for (const bad of ["abc", "0", "-1", ""]) {
      const r = await runBinary(["-p", "hi", "--max-budget-usd", bad], { cwd: project({}), env: { HOME: home() } })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`--max-budget-usd needs an amount of US dollars above 0 (like 0.50), not '${bad}'`)
    }
  })
})

describe("--add-dir", () => {
  test("the file tools and confined commands may write in an added folder; a missing one is skipped with a warning", async () => {
    const outside = tempDir("anvil-added-")
    const server = fakeOpenAI([
      { tool_calls: [{ name: "Write", arguments: { file_path: join(outside, "w.txt"), content: "written" } }] },
      { tool_calls: [{ name: "Bash", arguments: { command: `echo from-bash > ${join(outside, "b.txt")} && cat ${join(outside, "w.txt")}` } }] },
      { tool_calls: [{ name: "Read", arguments: { file_path: join(outside, "b.txt") } }] },
      { text: "done" },
    ])
    servers.push(server)
    const env = { HOME: home(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
    const run = (extra: ReadonlyArray<string>) =>
      runBinary(["-p", "go", ...stream, "--model", "openai/gpt-test", "--permission-mode", "bypassPermissions", ...extra], { cwd: project({}), env })
    const r = await run(["--add-dir", outside, "--add-dir", "no-such-folder"])
    expect(readFileSync(join(outside, "w.txt"), "utf8")).toBe("written")
    expect(readFileSync(join(outside, "b.txt"), "utf8")).toBe("from-bash\n")
    const results = lines(r.stdout).filter((m) => m.type === "user").map((m) => m.message.content[0])
    expect(results.map((c) => c.is_error)).toEqual([false, false, false])
    expect(results[2].content).toContain("from-bash")
    expect(r.stderr).toContain("--add-dir no-such-folder cannot be used (ENOENT); skipped")

    // Without it, both writes are refused.
    const other = tempDir("anvil-not-added-")
    server.push(
      { tool_calls: [{ name: "Write", arguments: { file_path: join(other, "w.txt"), content: "x" } }] },
      { tool_calls: [{ name: "Bash", arguments: { command: `echo x > ${join(other, "b.txt")}` } }] },
      { text: "done" },
    )
    const refused = await run([])
    const errors = lines(refused.stdout).filter((m) => m.type === "user").map((m) => m.message.content[0])
    expect(errors[0].content).toContain("ACCESS_DENIED")
    expect(existsSync(join(other, "w.txt"))).toBe(false)
    expect(existsSync(join(other, "b.txt"))).toBe(false)
  })
})

describe("subagents (the task tool) under the session's limits", () => {
  test("--max-budget-usd stops a subagent at the reply that passes it (its tool calls not run), and the session after it", async () => {
    // The subagent's one reply is 1M input tokens of Sonnet ($3), over the $1 budget; the replies after it must never be asked for.
    const big = { input_tokens: 1_000_000, output_tokens: 0 }
    const readIt = { tool_calls: [{ name: "read", arguments: { path: "a.txt" } }], usage: big }
    const { server, env } = anthropic([{ tool_calls: [{ name: "task", arguments: { objective: "look around" } }] }, readIt, readIt, readIt, { text: "sub done", usage: big }, { text: "main done" }])
    const r = await runBinary(["-p", "go", ...stream, "--model", "claude-sonnet-4-5", "--max-budget-usd", "1", "--permission-mode", "bypassPermissions"], { cwd: project({ "a.txt": "x\n" }), env })
    expect(server.requests.length).toBe(2)
    const out = lines(r.stdout)
    const result = out.find((m) => m.type === "result")
    expect(result).toMatchObject({ subtype: "error_max_budget_usd", reason: "max_budget" })
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(3)
    expect(result.total_cost_usd).toBeLessThan(3.01)
    const taskResult = out.filter((m) => m.type === "user" && m.parent_tool_use_id == null).map((m) => JSON.stringify(m.message.content))
    expect(taskResult.join("")).toContain("Reached maximum budget ($1)")
    expect(r.code).toBe(9)
  })

  test("--fallback-model holds in a subagent: its overloaded model hands over to the fallback", async () => {
    const { server, env } = anthropic([{ tool_calls: [{ name: "task", arguments: { objective: "look around" } }] }, overloaded, overloaded, overloaded, { text: "sub from the fallback" }, { text: "main done" }])
    const r = await runBinary(["-p", "go", "--output-format", "json", "--model", "claude-opus-4-1", "--fallback-model", "claude-sonnet-4-5"], { cwd: project({}), env })
    expect(server.requests.map((q) => q.body.model)).toEqual(["claude-opus-4-1", "claude-opus-4-1", "claude-opus-4-1", "claude-opus-4-1", "claude-sonnet-4-5", "claude-opus-4-1"])
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: "main done" })
    expect(JSON.stringify(server.requests[5]!.body.messages)).toContain("sub from the fallback")
  })
})
