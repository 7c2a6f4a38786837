import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { makeAnthropic } from "../../src/llm/anthropic.ts"
import { ModelHttp } from "../../src/llm/http.ts"
import { collectTurn, ModelError, type ModelEvent, type ModelRequest } from "../../src/llm/model.ts"
import { makeOpenAiCompatible } from "../../src/llm/openai-compatible.ts"
import { makeReplay, parseReplayScript } from "../../src/llm/replay.ts"
import { parseSse } from "../../src/llm/sse.ts"
import { fakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
const serve = <S extends FakeServer>(s: S) => (servers.push(s), s)

const http = { fetch: (url: string, init: RequestInit) => fetch(url, init) }
const fastRetry = { retries: 3, baseDelayMs: 1, maxDelayMs: 5 }

const request: ModelRequest = {
  system: "You are a test.",
  messages: [
    { role: "user", content: "list the files" },
    { role: "assistant", content: "Looking.", toolCalls: [{ id: "c1", name: "list", arguments: '{"path":"."}' }] },
    { role: "tool", toolCallId: "c1", name: "list", content: "# LS: .\na.txt" },
  ],
  tools: [{ name: "list", description: "Lists.", parameters: { type: "object", properties: { path: { type: "string" } } } }],
}

const run = (stream: ReturnType<ReturnType<typeof makeOpenAiCompatible>["stream"]>) => {
  const events: Array<ModelEvent> = []
  return Effect.runPromise(collectTurn(stream, (e) => Effect.sync(() => void events.push(e)))).then((turn) => ({ turn, events }))
}

describe("OpenAI-compatible provider", () => {
  test("streams text and several tool calls; sends the Chat Completions shape", async () => {
    const server = serve(
      fakeOpenAI([
        {
          text: "I will read both.",
          tool_calls: [
            { name: "read", arguments: { path: "a.txt" } },
            { name: "grep", arguments: { pattern: "TODO", path: "." } },
          ],
          usage: { input_tokens: 321, output_tokens: 12 },
        },
      ]),
    )
    const model = makeOpenAiCompatible(http, { provider: "openai", model: "gpt-test", baseUrl: server.url, apiKey: "sk-x", contextWindow: 1000, retry: fastRetry })
    const { turn, events } = await run(model.stream(request))
    expect(turn.text).toBe("I will read both.")
    expect(turn.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["read", { path: "a.txt" }],
      ["grep", { pattern: "TODO", path: "." }],
    ])
    expect(turn.toolCalls[0]!.id).toBe("call_1_1")
    expect(turn.usage).toEqual({ inputTokens: 321, outputTokens: 12 })
    expect(turn.finish).toBe("tool_calls")
    expect(events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThan(2)
    const req = server.requests[0]!
    expect(req.path).toBe("/v1/chat/completions")
    expect(req.headers.authorization).toBe("Bearer sk-x")
    expect(req.body.stream).toBe(true)
    expect(req.body.messages[0]).toEqual({ role: "system", content: "You are a test." })
    expect(req.body.messages[2].tool_calls[0]).toEqual({ id: "c1", type: "function", function: { name: "list", arguments: '{"path":"."}' } })
    expect(req.body.messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "# LS: .\na.txt" })
    expect(req.body.tools[0].function.name).toBe("list")
    expect(turn.requestBytes).toBe(req.bytes)
  })

  test("429 with Retry-After and a 503 are retried; the turn then succeeds", async () => {
    const server = serve(fakeOpenAI([{ status: 429, retry_after: "0" }, { status: 503 }, { text: "ok" }]))
    const model = makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: server.url, contextWindow: 1000, retry: fastRetry })
    const { turn, events } = await run(model.stream({ ...request, tools: [] }))
    expect(turn.text).toBe("ok")
    expect(server.requests.length).toBe(3)
    expect(events.find((e) => e.type === "request")).toMatchObject({ attempt: 3 })
  })

  test("401 is not retried and names the key variable", async () => {
    const server = serve(fakeOpenAI([{ status: 401, error_body: "bad key" }, { text: "never" }]))
    const model = makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: server.url, keyEnv: "OPENAI_API_KEY", contextWindow: 1000, retry: fastRetry })
    const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
    expect(error?.kind).toBe("auth")
    expect(error?.message).toContain("OPENAI_API_KEY")
    expect(error?.message).toContain("bad key")
    expect(server.requests.length).toBe(1)
  })

  test("retries stop after the configured number", async () => {
    const server = serve(fakeOpenAI([{ status: 500 }, { status: 500 }, { status: 500 }]))
    const model = makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: server.url, contextWindow: 1000, retry: { ...fastRetry, retries: 2 } })
    const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(server.requests.length).toBe(3)
  })

  test("a refused connection is a network error naming the URL", async () => {
    const model = makeOpenAiCompatible(http, { provider: "ollama", model: "m", baseUrl: "http://127.0.0.1:9/v1", contextWindow: 1000, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } })
    const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
    const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
    expect(error?.kind).toBe("network")
    expect(error?.message).toContain("127.0.0.1:9")
  })

  test("a stream the server breaks off names the URL, without Bun's advice to the program's author", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"hal"}}]}\n\n'))
              setTimeout(() => c.error(new Error("cut")), 50)
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    })
    try {
      const model = makeOpenAiCompatible(http, { provider: "ollama", model: "m", baseUrl: `${server.url.href}v1`, contextWindow: 1000, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } })
      const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
      const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
      expect(error?.message).toContain(`The model stream from ${server.url.href}v1/chat/completions broke off: `)
      expect(error?.message).not.toContain("verbose: true")
    } finally {
      server.stop(true)
    }
  })
})

describe("a server that ignores stream: true and answers with JSON", () => {
  /** A server answering every request with `answer` as application/json. */
  const jsonServer = async <A>(answer: unknown, use: (url: string) => Promise<A>): Promise<A> => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(answer) })
    try {
      return await use(server.url.href.replace(/\/$/, ""))
    } finally {
      server.stop(true)
    }
  }
  const noRetry = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }

  test("OpenAI: a chat.completion with text and tool calls is read as the whole answer", async () => {
    const completion = {
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Reading.", tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }] }, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    }
    const turn = await jsonServer(completion, (url) =>
      Effect.runPromise(collectTurn(makeOpenAiCompatible(http, { provider: "ollama", model: "m", baseUrl: `${url}/v1`, contextWindow: 1000, retry: noRetry }).stream(request))),
    )
    expect(turn).toMatchObject({ text: "Reading.", toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"a.txt"}' }], usage: { inputTokens: 12, outputTokens: 3 } })
  })

  test("Anthropic: a whole message with text and tool_use blocks is read as the answer", async () => {
    const message = {
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "t1", name: "read", input: { path: "a.txt" } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 7, output_tokens: 2 },
    }
    const turn = await jsonServer(message, (url) =>
      Effect.runPromise(collectTurn(makeAnthropic(http, { provider: "anthropic", model: "c", baseUrl: url, contextWindow: 1000, retry: noRetry }).stream(request))),
    )
    expect(turn).toMatchObject({ text: "Reading.", toolCalls: [{ id: "t1", name: "read", arguments: '{"path":"a.txt"}' }], finish: "tool_calls", usage: { inputTokens: 7, outputTokens: 2 } })
  })

  test("JSON that is no answer says so, showing what came", async () => {
    const exit = await jsonServer({ hello: "world" }, (url) =>
      Effect.runPromiseExit(collectTurn(makeOpenAiCompatible(http, { provider: "ollama", model: "m", baseUrl: `${url}/v1`, contextWindow: 1000, retry: noRetry }).stream(request))),
    )
    const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
    expect(error?.message).toBe(`The model server answered with JSON that is not a complete answer: {"hello":"world"}. Check that the base URL is a model endpoint of this provider's API.`)
  })
})

describe("Anthropic provider", () => {
  test("streams text and tool_use blocks; sends the Messages shape", async () => {
    const server = serve(
      fakeAnthropic([
        { text: "Reading.", tool_calls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "list", arguments: {} }], usage: { input_tokens: 50, output_tokens: 7 } },
      ]),
    )
    const model = makeAnthropic(http, { provider: "anthropic", model: "claude-test", baseUrl: server.url, apiKey: "ak", contextWindow: 1000, retry: fastRetry })
    const { turn } = await run(model.stream(request))
    expect(turn.text).toBe("Reading.")
    expect(turn.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ["toolu_1_1", "read", { path: "a.txt" }],
      ["toolu_1_2", "list", {}],
    ])
    expect(turn.usage).toEqual({ inputTokens: 50, outputTokens: 7 })
    const req = server.requests[0]!
    expect(req.path).toBe("/v1/messages")
    expect(req.headers["x-api-key"]).toBe("ak")
    expect(req.headers["anthropic-version"]).toBe("2023-06-01")
    expect(req.body.system).toBe("You are a test.")
    expect(req.body.max_tokens).toBe(8192)
    expect(req.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "list the files" }] },
      { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "c1", name: "list", input: { path: "." } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "# LS: .\na.txt" }] },
    ])
    expect(req.body.tools[0]).toEqual({ name: "list", description: "Lists.", input_schema: { type: "object", properties: { path: { type: "string" } } } })
  })

  test("529 overloaded is retried", async () => {
    const server = serve(fakeAnthropic([{ status: 529 }, { text: "fine" }]))
    const model = makeAnthropic(http, { provider: "anthropic", model: "c", baseUrl: `${server.url}/v1`, contextWindow: 1000, retry: fastRetry })
    const { turn } = await run(model.stream(request))
    expect(turn.text).toBe("fine")
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"])
  })
})

describe("a stream that closes before it finished", () => {
  const failure = async (model: ReturnType<typeof makeOpenAiCompatible>) => {
    const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
    expect(Exit.isFailure(exit)).toBe(true)
    return Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
  }
  test("OpenAI: text or tool arguments cut off without finish_reason or [DONE] are an error, not an answer", async () => {
    for (const turn of [{ text: "hello there, this is long", close_after_frames: 2 }, { tool_calls: [{ name: "list", arguments: { path: "src/deep" } }], close_after_frames: 3 }]) {
      const server = serve(fakeOpenAI([turn]))
      const error = await failure(makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: server.url, contextWindow: 1000, retry: fastRetry }))
      expect(error?.kind).toBe("protocol")
      expect(error?.message).toContain("ended before the answer was complete")
    }
  })
  test("Anthropic: no stop_reason or message_stop is an error; a body with no events says so", async () => {
    const server = serve(fakeAnthropic([{ text: "hello there, this is long", close_after_frames: 4 }]))
    const error = await failure(makeAnthropic(http, { provider: "anthropic", model: "c", baseUrl: server.url, contextWindow: 1000, retry: fastRetry }))
    expect(error?.message).toContain("no stop_reason or message_stop")
    const plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html>a login page</html>", { headers: { "content-type": "text/html" } }) })
    try {
      const none = await failure(makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: `http://127.0.0.1:${plain.port}/v1`, contextWindow: 1000, retry: fastRetry }))
      expect(none?.message).toContain("held no stream events")
    } finally {
      plain.stop(true)
    }
  })
})

describe("SSE framing", () => {
  const streamOf = (...parts: Array<string>) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p))
        c.close()
      },
    })
  test("events split across chunks, CRLF, comments, multi-line data and a missing final blank line", async () => {
    const out: Array<unknown> = []
    for await (const e of parseSse(streamOf(": hi\r\nevent: a\r\nda", "ta: 1\r\n\r", "\ndata: x\ndata: y\n\ndata: last"))) out.push(e)
    expect(out).toEqual([{ event: "a", data: "1" }, { data: "x\ny" }, { data: "last" }])
  })
})

describe("replay provider", () => {
  test("JSONL and array scripts play in order and run out with a clear error", async () => {
    const turns = parseReplayScript('{"text":"one"}\n\n{"tool_calls":[{"name":"read","arguments":{"path":"a"}}]}\n"three"\n', "s.jsonl")
    expect(turns.length).toBe(3)
    expect(parseReplayScript('[{"text":"a"}, "b"]', "s.json").length).toBe(2)
    const model = makeReplay(turns, "s.jsonl")
    const first = await Effect.runPromise(collectTurn(model.stream(request)))
    const second = await Effect.runPromise(collectTurn(model.stream(request)))
    const third = await Effect.runPromise(collectTurn(model.stream(request)))
    expect(first.text).toBe("one")
    expect(second.toolCalls[0]).toEqual({ id: "call_2_1", name: "read", arguments: '{"path":"a"}' })
    expect(third.text).toBe("three")
    const exit = await Effect.runPromiseExit(collectTurn(model.stream(request)))
    expect(String(Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error.message : "")).toContain("has no turn 4")
  })
  test("a broken line is reported with its number", () => {
    expect(() => parseReplayScript('{"text":"a"}\n{oops\n', "s.jsonl")).toThrow(/line 2/)
  })
})

test("ModelHttp.layer provides Bun's fetch", async () => {
  const f = await Effect.runPromise(Effect.provide(Effect.gen(function* () { return yield* ModelHttp }), ModelHttp.layer))
  expect(typeof f.fetch).toBe("function")
})
