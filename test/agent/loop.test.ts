import { describe, expect, test } from "bun:test"
import { Deferred, Effect, Schema } from "effect"
import type { AgentEvent } from "../../src/agent/events.ts"
import type { HistoryItem, ToolItem } from "../../src/agent/history.ts"
import { runTurn } from "../../src/agent/loop.ts"
import { groupCalls, uniqueCallIds } from "../../src/agent/call-parsing.ts"
import type { LoopOptions, LoopRecord } from "../../src/agent/loop-options.ts"
import { makeReplay, type ReplayTurn } from "../../src/llm/replay.ts"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { ToolRunner } from "../../src/tool-framework/runner.ts"
import type { AskAnswer } from "../../src/permission/permissions.ts"
import { calculatorTool } from "../../src/tools/calculator.ts"
import { hangTool } from "../support/fixture-tools.ts"
import { hookRunner, withHooks } from "../../src/plugins/hook-runner.ts"
import { project, session } from "../support/harness.ts"

// Two read-only tools that can only finish when they run side by side: `waiter` waits for the latch `opener` opens.
const makeLatchTools = () => {
  const latch = Effect.runSync(Deferred.make<void>())
  const order: Array<string> = []
  const waiter = defineTool({
    name: "waiter",
    title: "Waiter",
    description: "waits",
    readOnly: true,
    parameters: Schema.Struct({}),
    run: () =>
      Deferred.await(latch).pipe(
        Effect.timeout("3 seconds"),
        Effect.map(() => ({ data: { waited: true }, text: "waited" })),
        Effect.orElseSucceed(() => ({ data: { waited: false }, text: "timed out: not concurrent" })),
      ),
  })
  const opener = defineTool({
    name: "opener",
    title: "Opener",
    description: "opens",
    readOnly: true,
    parameters: Schema.Struct({}),
    run: () => Effect.andThen(Deferred.succeed(latch, undefined), Effect.succeed({ data: {}, text: "opened" })),
  })
  const writer = defineTool({
    name: "writer",
    title: "Writer",
    description: "changes things",
    parameters: Schema.Struct({ tag: Schema.String }),
    run: ({ tag }) =>
      Effect.gen(function* () {
        order.push(`start ${tag}`)
        yield* Effect.sleep("20 millis")
        order.push(`end ${tag}`)
        return { data: { applied: true, path: `${tag}.ts` }, text: `wrote ${tag}`, meta: { file_ops: { file_path: `${tag}.ts`, operation: "overwrite" } } }
      }),
  })
  return { waiter, opener, writer, order }
}

/** A turn whose model calls `name` once and then answers "could not". */
const oneCallTurn = (tools: ReadonlyArray<any>, name: string, options: { onAsk?: () => Effect.Effect<AskAnswer> } = {}) =>
  session(project({}), { tools, ...options }).run(
    Effect.gen(function* () {
      const runner = yield* ToolRunner
      return yield* runTurn({ items: [] }, "do it", {
        model: makeReplay([{ tool_calls: [{ name }] }, { text: "could not" }], "test"),
        runner,
        engine: "native",
        system: "sys",
        maxSteps: 10,
        emit: () => Effect.void,
        record: () => Effect.void,
      })
    }),
  )

const turn = async (
  tools: ReadonlyArray<any>,
  script: ReadonlyArray<ReplayTurn>,
  extra: Partial<LoopOptions> = {},
  items: Array<HistoryItem> = [],
) => {
  const root = project({})
  const s = session(root, { tools })
  const events: Array<AgentEvent> = []
  const records: Array<LoopRecord> = []
  const conversation = { items }
  const model = extra.model ?? makeReplay(script, "test")
  const result = await s.run(
    Effect.gen(function* () {
      const runner = yield* ToolRunner
      return yield* runTurn(conversation, "do it", {
        model,
        runner,
        engine: "native",
        system: "sys",
        maxSteps: 10,
        emit: (e) => Effect.sync(() => void events.push(e)),
        record: (r) => Effect.sync(() => void records.push(r)),
        ...extra,
      })
    }),
  )
  return { result, events, records, conversation }
}

describe("the agent loop", () => {
  test("read-only calls of one turn run concurrently; results keep the model's order", async () => {
    const { waiter, opener } = makeLatchTools()
    const { result, conversation } = await turn(
      [waiter, opener],
      [{ tool_calls: [{ name: "waiter", id: "w" }, { name: "opener", id: "o" }] }, { text: "done" }],
    )
    expect(result.status).toBe("success")
    const tools = conversation.items.filter((i): i is ToolItem => i.type === "tool")
    expect(tools.map((t) => [t.call_id, t.text])).toEqual([
      ["w", "# Waiter\n\nwaited"],
      ["o", "# Opener\n\nopened"],
    ])
  })

  test("calls that change things run alone and in order", async () => {
    const { writer, order } = makeLatchTools()
    await turn([writer], [{ tool_calls: [{ name: "writer", arguments: { tag: "a" } }, { name: "writer", arguments: { tag: "b" } }] }, { text: "ok" }])
    expect(order).toEqual(["start a", "end a", "start b", "end b"])
    expect(groupCalls([1, 2, 3, 4, 5], (n) => n !== 3).map((g) => g.length)).toEqual([2, 1, 2])
  })

  test("tool call ids are made unique in the conversation: a taken or empty id gets the first free <id>_<n>", () => {
    const taken = new Set(["call_0", "call_0_3"])
    const call = (id: string) => ({ id, name: "read", arguments: "{}" })
    expect(uniqueCallIds([call("call_0"), call("call_0"), call(""), call(""), call("x")], taken).map((c) => c.id)).toEqual(["call_0_2", "call_0_4", "call_2", "call_3", "x"])
    expect([...taken]).toEqual(["call_0", "call_0_3", "call_0_2", "call_0_4", "call_2", "call_3", "x"])
  })

  test("history items keep the raw envelope and execution_meta; every item is recorded, then turn_end", async () => {
    const { result, conversation, records } = await turn(
      [calculatorTool],
      [{ text: "computing", tool_calls: [{ name: "calculator", arguments: { expression: "2+3" }, id: "c1" }] }, { text: "5" }],
    )
    expect(result).toMatchObject({ status: "success", reason: "completed", answer: "5" })
    expect(conversation.items.map((i) => i.type)).toEqual(["user", "assistant", "tool", "assistant"])
    const tool = conversation.items[2] as ToolItem
    expect(tool.metadata.tool_raw_envelope.data.result).toBe("5")
    expect(tool.metadata.tool_execution_meta).toMatchObject({ tool_name: "Calculator", tool_call_id: "c1", status: "success" })
    expect(records.map((r) => r.type)).toEqual(["item", "item", "item", "item", "turn_end"])
  })

  test("cancellation interrupts the running tool, answers it CANCELLED and ends the turn", async () => {
    const cancel = Effect.runSync(Deferred.make<void>())
    setTimeout(() => Effect.runSync(Deferred.succeed(cancel, undefined)), 50)
    const { result, conversation } = await turn([hangTool], [{ tool_calls: [{ name: "hang", id: "h" }] }, { text: "never" }], {
      cancelled: Deferred.await(cancel),
    })
    expect(result).toMatchObject({ status: "cancelled", reason: "cancelled" })
    const tool = conversation.items.find((i): i is ToolItem => i.type === "tool")!
    expect(tool.metadata.tool_raw_envelope.error?.code).toBe("CANCELLED")
    expect(result.stats.steps).toBe(1)
  })

  test("the first request waits for `ready` (MCP servers starting); Ctrl-C during the wait ends the turn before any request", async () => {
    const ready = Effect.runSync(Deferred.make<void>())
    let readyBeforeRequest = false
    setTimeout(() => Effect.runSync(Deferred.succeed(ready, undefined)), 50)
    const waited = await turn([calculatorTool], [{ text: "hi" }], {
      ready: Deferred.await(ready),
      emit: (e) => Effect.sync(() => void (e.type === "step_start" && (readyBeforeRequest = Effect.runSync(Deferred.isDone(ready))))),
    })
    expect(waited.result.status).toBe("success")
    expect(readyBeforeRequest).toBe(true)

    const cancel = Effect.runSync(Deferred.make<void>())
    setTimeout(() => Effect.runSync(Deferred.succeed(cancel, undefined)), 50)
    const never = await turn([calculatorTool], [{ text: "never asked" }], { ready: Effect.never, cancelled: Deferred.await(cancel) })
    expect(never.result).toMatchObject({ status: "cancelled", reason: "cancelled" })
    expect(never.result.stats.steps).toBe(0)
  })

  test("a denied call ends the turn permission_denied: --yes/--allow advised only when no one could be asked", async () => {
    const asking = defineTool({
      name: "asking",
      title: "Asking",
      description: "needs approval",
      permission: "ask",
      parameters: Schema.Struct({}),
      run: () => Effect.succeed({ data: {}, text: "ran" }),
    })
    const denied = (answer: AskAnswer) => oneCallTurn([asking], "asking", { onAsk: () => Effect.succeed(answer) })
    const scripted = await denied({ deny: "needs approval and no terminal", unattended: true })
    expect(scripted.reason).toBe("permission_denied")
    expect(scripted.error).toBe("Permission was denied for asking; that part of the work was not done. Approve asking calls with --allow or --yes.")
    // The person said no at the prompt: telling them to pass --yes would argue with their answer.
    for (const answer of ["deny", { deny: "The user denied this call and said: not now" }] as const) {
      const person = await denied(answer)
      expect(person.reason).toBe("permission_denied")
      expect(person.error).toBe("Permission was denied for asking; that part of the work was not done. asking was declined when asked.")
    }
  })

  test("a call a plugin's tool.before hook refused ends the turn naming the plugin, not a person who declined nor --yes", async () => {
    const guarded = defineTool({
      name: "guarded",
      title: "Guarded",
      description: "a tool a plugin guards",
      readOnly: true,
      parameters: Schema.Struct({}),
      run: () => Effect.succeed({ data: {}, text: "ran" }),
    })
    const hooks = hookRunner([{ plugin: "safety", name: "tool.before", fn: () => ({ deny: "not on Fridays" }) }], { timeoutMs: 5000, onProblem: () => {} })
    const result = await oneCallTurn([withHooks(guarded, hooks, () => {})], "guarded")
    expect(result.reason).toBe("permission_denied")
    expect(result.error).toBe(
      "Permission was denied for guarded; that part of the work was not done. Blocked by plugin hooks, which --yes and --allow do not override: guarded (plugin 'safety'). " +
        'The reason is in the call\'s result; to let such calls run, change the plugin or list it in "plugins.disabled".',
    )
  })

  test("a model error ends the turn with model_error, the history stays usable", async () => {
    const { result, events } = await turn([calculatorTool], [])
    expect(result).toMatchObject({ status: "error", reason: "model_error" })
    expect(result.error).toContain("has no turn 1")
    expect(events.some((e) => e.type === "error")).toBe(true)
  })

  test("a prompt that cannot fit the context window is refused before any request, kept out of the history; the next prompt runs", async () => {
    const model = makeReplay([{ text: "fits" }], "test", 2_000)
    const huge = await turn([calculatorTool], [], { model, context: ["y".repeat(40_000)] })
    expect(huge.result).toMatchObject({ status: "error", reason: "prompt_too_long" })
    expect(huge.result.error).toStartWith("PROMPT_TOO_LONG: the prompt (40,005 characters")
    expect(huge.result.error).toContain("Next step:")
    expect(huge.events.some((e) => e.type === "model_request")).toBe(false)
    expect(huge.conversation.items).toEqual([])
    expect(huge.records.map((r) => r.type)).toEqual(["turn_end"])
    const next = await turn([calculatorTool], [], { model }, huge.conversation.items)
    expect(next.result).toMatchObject({ status: "success", answer: "fits" })
  })

  test("near the context window older turns are compacted into a summary keeping the todo list and the files touched", async () => {
    const { writer } = makeLatchTools()
    const big = "x".repeat(12_000)
    const todos = defineTool({
      name: "todowrite",
      title: "TodoWrite",
      description: "todos",
      parameters: Schema.Struct({}),
      run: () => Effect.succeed({ data: { todos: [{ content: "ship it", status: "in_progress" }] }, text: "saved" }),
    })
    const dump = defineTool({
      name: "dump",
      title: "Dump",
      description: "prints a lot",
      readOnly: true,
      parameters: Schema.Struct({}),
      run: () => Effect.succeed({ data: {}, text: big }),
    })
    const model = makeReplay(
      [
        // Turn 1: tools, then an answer.
        { tool_calls: [{ name: "writer", arguments: { tag: "src/app" } }, { name: "todowrite", arguments: {} }, { name: "dump", arguments: {} }] },
        { text: "first turn done" },
        // Turn 2: the history is over the threshold, so the summary request comes first.
        { text: "The model's summary of the earlier work.", usage: { input_tokens: 900, output_tokens: 90 } },
        { text: "second turn done", usage: { input_tokens: 300, output_tokens: 30 } },
      ],
      "t",
      4000,
    )
    const s = session(project({}), { tools: [writer, todos, dump] })
    const conversation = { items: [] as Array<HistoryItem> }
    const events: Array<AgentEvent> = []
    const records: Array<LoopRecord> = []
    const options = (threshold: number) =>
      Effect.map(Effect.service(ToolRunner), (runner): LoopOptions => ({
        model,
        runner,
        engine: "native",
        system: "sys",
        maxSteps: 10,
        compaction: { threshold, keepFraction: 0.05 },
        emit: (e) => Effect.sync(() => void events.push(e)),
        record: (r) => Effect.sync(() => void records.push(r)),
      }))
    const first = await s.run(Effect.flatMap(options(100), (o) => runTurn(conversation, "first", o)))
    expect(first.stats.compactions).toBe(0)
    const second = await s.run(Effect.flatMap(options(0.5), (o) => runTurn(conversation, "second", o)))
    expect(second).toMatchObject({ status: "success", answer: "second turn done" })
    expect(second.stats.compactions).toBe(1)
    // The summarising request counts in the turn's usage, and apart.
    expect(second.usage_parts!.compaction).toEqual({ inputTokens: 900, outputTokens: 90 })
    expect(second.usage).toEqual({ inputTokens: 1200, outputTokens: 120 })
    expect(events.find((e) => e.type === "compaction")).toMatchObject({ type: "compaction", replaced: 5 })
    const summary = conversation.items[0]!
    expect(summary.type).toBe("summary")
    expect(summary.text).toContain("The model's summary of the earlier work.")
    expect(summary.text).toContain("Files changed: src/app.ts")
    expect(summary.text).toContain("- [in_progress] ship it")
    expect(conversation.items.map((i) => i.type)).toEqual(["summary", "assistant", "user", "assistant"])
    expect(records.filter((r) => r.type === "compaction").length).toBe(1)
    expect(JSON.stringify(conversation.items)).not.toContain(big)
  })
})
