import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { makeAnthropic } from "../../src/llm/anthropic.ts"
import { collectTurn, ModelError, type LanguageModelShape, type ModelEvent, type ModelRequest } from "../../src/llm/model.ts"
import { makeOpenAiCompatible } from "../../src/llm/openai-compatible.ts"
import { parseRetryAfter } from "../../src/llm/retry.ts"
import { streamError } from "../../src/llm/stream-end.ts"
import { fakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"

// A model stream that fails before any of its answer came is retried as a failed HTTP request is; once part of the
// answer was streamed it never is. A Retry-After longer than the policy's limit fails at once, saying what was asked.
const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
const http = { fetch: (url: string, init: RequestInit) => fetch(url, init) }
const retry = { retries: 3, baseDelayMs: 1, maxDelayMs: 50 }
const request: ModelRequest = { system: "s", messages: [{ role: "user", content: "hi" }], tools: [] }

const openai = (script: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(script)
  servers.push(server)
  return { server, model: makeOpenAiCompatible(http, { provider: "openai", model: "m", baseUrl: server.url, contextWindow: 1000, retry }) }
}
const anthropic = (script: ReadonlyArray<FakeTurn>) => {
  const server = fakeAnthropic(script)
  servers.push(server)
  return { server, model: makeAnthropic(http, { provider: "anthropic", model: "c", baseUrl: server.url, contextWindow: 1000, retry }) }
}
const turnOf = async (model: LanguageModelShape) => {
  const events: Array<ModelEvent> = []
  const exit = await Effect.runPromiseExit(collectTurn(model.stream(request), (e) => Effect.sync(() => void events.push(e))))
  const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: ModelError }).error : undefined
  return { turn: Exit.isSuccess(exit) ? exit.value : undefined, error, events, retries: events.filter((e) => e.type === "retry") }
}

describe("a stream that fails before its answer", () => {
  test("OpenAI-compatible: a server_error chunk, a broken connection, a stream closed early are retried", async () => {
    for (const failing of [
      { stream_error: { after_frames: 0, error: { message: "overloaded", type: "server_error", code: 503 } } },
      { text: "never sent", break_after_frames: 1 },
      { text: "never sent", close_after_frames: 1 },
    ] as const) {
      const { server, model } = openai([failing, { text: "fine" }])
      const { turn, retries } = await turnOf(model)
      expect(turn?.text).toBe("fine")
      expect(server.requests.length).toBe(2)
      expect(retries.length).toBe(1)
    }
  })

  test("Anthropic: overloaded_error, rate_limit_error and api_error events are retried; invalid_request_error is not", async () => {
    for (const type of ["overloaded_error", "rate_limit_error", "api_error"]) {
      const { server, model } = anthropic([{ stream_error: { after_frames: 1, error: { type, message: "try later" } } }, { text: "fine" }])
      const { turn, retries } = await turnOf(model)
      expect(turn?.text).toBe("fine")
      expect(server.requests.length).toBe(2)
      expect(retries[0]?.type === "retry" && retries[0].error.message).toBe(`The Anthropic API reported an error mid-stream: ${type}: try later`)
    }
    const { server, model } = anthropic([{ stream_error: { after_frames: 1, error: { type: "invalid_request_error", message: "bad" } } }, { text: "unused" }])
    const { error } = await turnOf(model)
    expect(error?.message).toBe("The Anthropic API reported an error mid-stream: invalid_request_error: bad")
    expect(server.requests.length).toBe(1)
  })

  test("once text was streamed, an error or a broken connection ends the turn without a retry", async () => {
    for (const failing of [
      { text: "half an answer", stream_error: { after_frames: 2, error: { message: "overloaded", type: "server_error" } } },
      { text: "half an answer", break_after_frames: 2 },
    ]) {
      const { server, model } = openai([failing, { text: "unused" }])
      const { error, events, retries } = await turnOf(model)
      expect(events.some((e) => e.type === "text_delta")).toBe(true)
      expect(error).toBeDefined()
      expect(retries.length).toBe(0)
      expect(server.requests.length).toBe(1)
    }
  })

  test("the retries stop at the policy's count; the last error is the one reported", async () => {
    const failing = { stream_error: { after_frames: 0, error: { message: "busy", code: 429 } } }
    const { server, model } = openai([failing, failing, failing, failing, { text: "unused" }])
    const { error, retries } = await turnOf(model)
    expect(error?.message).toBe("The model server reported an error mid-stream: busy")
    expect(error?.kind).toBe("rate_limit")
    expect(retries.length).toBe(3)
    expect(server.requests.length).toBe(4)
  })
})

describe("Retry-After", () => {
  test("a wait within the limit is honoured as asked", async () => {
    const { model } = openai([{ status: 429, retry_after: "0.04" }, { text: "fine" }])
    const { turn, retries } = await turnOf(model)
    expect(turn?.text).toBe("fine")
    expect(retries[0]?.type === "retry" && retries[0].delayMs).toBe(40)
  })

  test("a longer wait than the limit fails at once, saying how long the server asked for", async () => {
    const { server, model } = openai([{ status: 429, retry_after: "120", error_body: "slow down" }, { text: "unused" }])
    const { error, retries } = await turnOf(model)
    expect(retries.length).toBe(0)
    expect(server.requests.length).toBe(1)
    expect(error?.kind).toBe("rate_limit")
    expect(error?.retryable).toBe(false)
    expect(error?.message).toBe(
      `Rate limited (HTTP 429) by ${server.url}/chat/completions. slow down The server asked to wait 120 s (about 2 min) before trying again (Retry-After), ` +
        "longer than the 50 ms anvil waits at most, so it was not retried. Next step: try again after that time, or raise model_retry.max_delay_ms in anvil.json to wait for it.",
    )
  })

  test("retry-after-ms wins over Retry-After; seconds and HTTP dates are read", () => {
    const headers = (h: Record<string, string>) => new Headers(h)
    expect(parseRetryAfter(headers({ "retry-after-ms": "1500", "retry-after": "9" }), 0)).toBe(1500)
    expect(parseRetryAfter(headers({ "retry-after": "3" }), 0)).toBe(3000)
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 1970 00:01:00 GMT" }), 30_000)).toBe(30_000)
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), 0)).toBeUndefined()
    expect(parseRetryAfter(headers({}), 0)).toBeUndefined()
  })
})

test("a server's in-stream error is retryable when it may heal", () => {
  const retryable = (error: unknown) => streamError("x", error).retryable
  expect([{ type: "overloaded_error" }, { type: "api_error" }, { code: 502 }, { code: "rate_limit_exceeded" }, { status: 503 }].map(retryable)).toEqual([true, true, true, true, true])
  expect([{ type: "invalid_request_error" }, { code: "context_length_exceeded" }, { code: 400 }, "something broke", { type: "authentication_error" }].map(retryable)).toEqual([false, false, false, false, false])
})
