import { Duration, Effect, Stream } from "effect"
import type { ModelHttpShape } from "./http.ts"
import { ModelError, type LanguageModelShape, type ModelEvent, type ModelRequest } from "./model.ts"
import { parseSse, type SseEvent } from "./sse.ts"
import { WHOLE_ANSWER } from "./stream-end.ts"
import { DEFAULT_RETRY, parseRetryAfter, withRetries, type RetryPolicy } from "./retry.ts"
import { fetchErrorText } from "../net/http-client.ts"
import { redactUrlLogin } from "../net/secrets.ts"

/** How long to wait for a model server: its response headers, then each piece of the stream. */
export interface ModelTimeouts {
  /** From sending the request to the response's headers. */
  readonly requestMs: number
  /** The longest silence allowed between two pieces of a streaming answer. */
  readonly idleMs: number
}

export const DEFAULT_TIMEOUTS: ModelTimeouts = { requestMs: 120_000, idleMs: 180_000 }

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat
}

/** Maps a non-2xx response to a ModelError: 429 and 5xx (and 408, 529) are retryable, 401/403 name the key to check. */
export const statusError = (status: number, body: string, headers: Headers, what: { url: string; keyHint: string }): ModelError => {
  const detail = excerpt(body)
  const retryAfterMs = parseRetryAfter(headers, Date.now())
  const base = { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }
  if (status === 401 || status === 403) {
    return new ModelError({
      ...base,
      kind: "auth",
      retryable: false,
      message: `The model server refused the credentials (HTTP ${status}) at ${what.url}. ${what.keyHint}${detail ? ` Server said: ${detail}` : ""}`,
    })
  }
  if (status === 429) {
    return new ModelError({ ...base, kind: "rate_limit", retryable: true, message: `Rate limited (HTTP 429) by ${what.url}.${detail ? ` ${detail}` : ""}` })
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ModelError({ ...base, kind: "server", retryable: true, ...(status === 529 || status === 503 ? { overloaded: true } : {}), message: `The model server failed (HTTP ${status}) at ${what.url}.${detail ? ` ${detail}` : ""}` })
  }
  return new ModelError({
    ...base,
    kind: "bad_request",
    retryable: false,
    message: `The model server rejected the request (HTTP ${status}) at ${what.url}.${detail ? ` ${detail}` : ""}`,
  })
}

/** Failures that no retry can heal: a host name that does not resolve (the platform's ENOTFOUND / EAI_AGAIN-less DNS errors). */
const isDnsFailure = (e: unknown): boolean => {
  const code = (e as { code?: unknown })?.code
  return code === "ENOTFOUND" || code === "EAI_NONAME" || code === "DNSException"
}

export interface SseRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /** What to tell the user when the credentials are refused ("Check OPENAI_API_KEY."). */
  readonly keyHint: string
  readonly timeouts?: ModelTimeouts
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`)

/** A JSON body as a one-event stream, named so the decoder knows it is a whole answer rather than a chunk. */
const wholeAnswer = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder()
  let text = ""
  const decoder = new TextDecoder()
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (!done) {
        text += decoder.decode(value, { stream: true })
        return
      }
      text += decoder.decode()
      // Server-sent events under a wrong content type stay what they are.
      if (/^\s*(data|event|id|retry)?:/.test(text)) {
        controller.enqueue(encoder.encode(text))
        controller.close()
        return
      }
      // SSE framing: every line of the JSON a `data:` line of one event.
      const data = text.split(/\r?\n|\r/).map((line) => `data: ${line}`).join("\n")
      controller.enqueue(encoder.encode(`event: ${WHOLE_ANSWER}\n${data}\n\n`))
      controller.close()
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/**
 * POSTs a streaming request, once, and yields its server-sent events (`withRetries` runs it again when it fails
 * before its answer). Failures that cannot heal (DNS, 401/403, 400, a timeout) are not retryable. No response headers
 * within `timeouts.requestMs`, or a silence longer than `timeouts.idleMs` while streaming, ends it with a `timeout`
 * error. Interrupting the stream aborts the HTTP request. The first element after a successful connection is a
 * `request` event with the body's size and `attempt`, its number.
 */
export const streamSse = (http: ModelHttpShape, request: SseRequest, attempt: number): Stream.Stream<SseEvent | ModelEvent, ModelError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const timeouts = request.timeouts ?? DEFAULT_TIMEOUTS
      const controller = yield* Effect.acquireRelease(
        Effect.sync(() => new AbortController()),
        (c) => Effect.sync(() => c.abort()),
      )
      // What messages name: the URL without the credentials a base URL may hold (user, password, a key parameter).
      const where = redactUrlLogin(request.url)
      const body = JSON.stringify(request.body)
      const bytes = new TextEncoder().encode(body).length
      const open = Effect.gen(function* () {
        const response = yield* Effect.tryPromise({
          try: () =>
            http.fetch(request.url, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "text/event-stream", ...request.headers },
              body,
              signal: controller.signal,
              // Our own deadlines apply (below); Bun's socket idle timer would cut a slow local model at 5 minutes.
              timeout: false,
            } as RequestInit),
          catch: (e) =>
            new ModelError({
              kind: "network",
              retryable: !isDnsFailure(e),
              message: isDnsFailure(e)
                ? `Could not reach the model server at ${where}: the host name does not resolve (${fetchErrorText(e)}). Check the base URL.`
                : `Could not reach the model server at ${where}: ${fetchErrorText(e)}`,
            }),
        }).pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(timeouts.requestMs),
            orElse: () =>
              Effect.fail(
                new ModelError({
                  kind: "timeout",
                  retryable: false,
                  message: `The model server at ${where} did not answer within ${seconds(timeouts.requestMs)} (request timeout; set model_timeout.request_sec in anvil.json or --timeout).`,
                }),
              ),
          }),
        )
        if (!response.ok) {
          const text = yield* Effect.promise(() => response.text().catch(() => ""))
          return yield* Effect.fail(statusError(response.status, text, response.headers, { url: where, keyHint: request.keyHint }))
        }
        if (!response.body) {
          return yield* Effect.fail(new ModelError({ kind: "protocol", retryable: true, message: `The model server at ${where} sent no body.` }))
        }
        // A server that ignored `stream: true` answers with the whole message as JSON: the decoder gets it as one event.
        if (/\bjson\b/i.test(response.headers.get("content-type") ?? "")) return wholeAnswer(response.body)
        return response.body
      })
      const stalled = () =>
        Stream.fail(
          new ModelError({
            kind: "timeout",
            retryable: false,
            message: `The model stream from ${where} stalled: nothing arrived for ${seconds(timeouts.idleMs)} (idle timeout; set model_timeout.idle_sec in anvil.json or --timeout).`,
          }),
        )
      // A connection that breaks is worth another attempt; withRetries makes none once part of the answer came.
      const connected = (stream: ReadableStream<Uint8Array>) =>
        Stream.concat(
          Stream.make<Array<SseEvent | ModelEvent>>({ type: "request", bytes, attempt }),
          Stream.fromAsyncIterable(parseSse(stream), (e) =>
            new ModelError({
              kind: "network",
              retryable: true,
              message: `The model stream from ${where} broke off: ${fetchErrorText(e)}`,
            }),
          ).pipe(Stream.timeoutOrElse({ duration: Duration.millis(timeouts.idleMs), orElse: stalled })),
        )
      return Stream.unwrap(Effect.map(open, connected))
    }),
  )

/** Turns a provider's SSE events into model events; `end` flushes what an unterminated stream left open. */
export interface SseDecoder {
  readonly event: (sse: SseEvent) => ReadonlyArray<ModelEvent>
  readonly end: () => ReadonlyArray<ModelEvent>
}

/** Applies a decoder to `streamSse`'s output; a decoder that throws a ModelError ends the stream with it. */
export const decodeSse = (
  source: Stream.Stream<SseEvent | ModelEvent, ModelError>,
  decoder: SseDecoder,
): Stream.Stream<ModelEvent, ModelError> => {
  const guard = (f: () => ReadonlyArray<ModelEvent>) =>
    Effect.try({
      try: f,
      catch: (e) =>
        e instanceof ModelError
          ? e
          : new ModelError({ kind: "protocol", retryable: false, message: `Could not decode the model stream: ${fetchErrorText(e)}` }),
    })
  return source.pipe(
    Stream.mapEffect((e) => ("type" in e ? Effect.succeed([e] as ReadonlyArray<ModelEvent>) : guard(() => decoder.event(e)))),
    Stream.concat(Stream.fromEffect(Effect.suspend(() => guard(decoder.end)))),
    Stream.flattenIterable,
  )
}

/** What every SSE provider is configured with. */
export interface SseProviderOptions {
  readonly provider: string
  readonly model: string
  readonly baseUrl: string
  readonly apiKey?: string | undefined
  /** The variable to name when the key is refused. */
  readonly keyEnv?: string | undefined
  readonly contextWindow: number
  readonly maxTokens?: number | undefined
  /** Extra request headers (configured per provider). */
  readonly headers?: Readonly<Record<string, string>>
  readonly retry?: RetryPolicy
  readonly timeouts?: ModelTimeouts
}

/**
 * A model that streams one turn as server-sent events from one endpoint: the
 * wire format is the provider's (`headers`, `body`, `decoder`), the request,
 * retries and decoding are shared.
 */
export const sseModel = (
  http: ModelHttpShape,
  options: SseProviderOptions,
  wire: {
    readonly url: string
    readonly headers: Readonly<Record<string, string>>
    readonly body: (request: ModelRequest) => unknown
    /** A new decoder for each attempt at `request`. */
    readonly decoder: (request: ModelRequest) => SseDecoder
  },
): LanguageModelShape => {
  const keyHint = options.keyEnv ? `Check ${options.keyEnv}.` : "Check the API key."
  return {
    id: `${options.provider}/${options.model}`,
    provider: options.provider,
    model: options.model,
    contextWindow: options.contextWindow,
    stream: (request) =>
      Stream.suspend(() => {
        const body = wire.body(request)
        // Each attempt is a new request read by a new decoder: nothing of a failed one is kept.
        return withRetries(options.retry ?? DEFAULT_RETRY, (attempt) =>
          decodeSse(
            streamSse(http, { url: wire.url, headers: wire.headers, body, keyHint, ...(options.timeouts ? { timeouts: options.timeouts } : {}) }, attempt),
            wire.decoder(request),
          ),
        )
      }),
  }
}
