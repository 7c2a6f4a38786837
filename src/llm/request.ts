import { Duration, Effect, Schedule, Stream } from "effect"
import type { ModelHttpShape } from "./http.ts"
import { ModelError, type LanguageModelShape, type ModelEvent, type ModelRequest } from "./model.ts"
import { parseSse, type SseEvent } from "./sse.ts"

/** How often and how long a model request is retried (429, 5xx, network failures). */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number
  /** First backoff delay; doubles on each retry. */
  readonly baseDelayMs: number
  /** Upper bound of one delay, Retry-After included. */
  readonly maxDelayMs: number
}

/** How long a model connection may stay silent (Bun's socket idle timer). */
const IDLE_TIMEOUT_MS = 30 * 60 * 1000

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000 }

/** Retry-After as seconds or an HTTP date, in milliseconds. */
export const parseRetryAfter = (value: string | null, now: number): number | undefined => {
  if (value === null || value.trim() === "") return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat
}

/** Maps a non-2xx response to a ModelError: 429 and 5xx (and 408, 529) are retryable, 401/403 name the key to check. */
export const statusError = (status: number, body: string, retryAfter: string | null, what: { url: string; keyHint: string }): ModelError => {
  const detail = excerpt(body)
  const retryAfterMs = parseRetryAfter(retryAfter, Date.now())
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
    return new ModelError({ ...base, kind: "server", retryable: true, message: `The model server failed (HTTP ${status}) at ${what.url}.${detail ? ` ${detail}` : ""}` })
  }
  return new ModelError({
    ...base,
    kind: "bad_request",
    retryable: false,
    message: `The model server rejected the request (HTTP ${status}) at ${what.url}.${detail ? ` ${detail}` : ""}`,
  })
}

const retrySchedule = (policy: RetryPolicy) =>
  Schedule.exponential(Duration.millis(policy.baseDelayMs), 2).pipe(
    Schedule.modifyDelay(({ input, duration }: { input: ModelError; duration: Duration.Duration }) =>
      Effect.succeed(Duration.millis(Math.min(policy.maxDelayMs, input.retryAfterMs ?? Duration.toMillis(duration)))),
    ),
  )

export interface SseRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /** What to tell the user when the credentials are refused ("Check OPENAI_API_KEY."). */
  readonly keyHint: string
  readonly retry: RetryPolicy
}

/**
 * POSTs a streaming request and yields its server-sent events. The request is
 * retried with exponential backoff (honouring Retry-After) while it fails
 * before streaming starts; once events flow, a failure ends the stream (a
 * retry then would repeat output the user has already seen). Interrupting the
 * stream aborts the HTTP request. The first element is a `request` event with
 * the size of the body sent.
 */
export const streamSse = (http: ModelHttpShape, request: SseRequest): Stream.Stream<SseEvent | ModelEvent, ModelError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const controller = yield* Effect.acquireRelease(
        Effect.sync(() => new AbortController()),
        (c) => Effect.sync(() => c.abort()),
      )
      const body = JSON.stringify(request.body)
      const bytes = new TextEncoder().encode(body).length
      let attempt = 0
      const open = Effect.gen(function* () {
        attempt++
        const response = yield* Effect.tryPromise({
          try: () =>
            http.fetch(request.url, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "text/event-stream", ...request.headers },
              body,
              signal: controller.signal,
              // A local model may think for minutes before its first byte: Bun's 5-minute idle default is too short.
              timeout: IDLE_TIMEOUT_MS,
            } as RequestInit),
          catch: (e) =>
            new ModelError({
              kind: "network",
              retryable: true,
              message: `Could not reach the model server at ${request.url}: ${e instanceof Error ? e.message : String(e)}`,
            }),
        })
        if (!response.ok) {
          const text = yield* Effect.promise(() => response.text().catch(() => ""))
          return yield* Effect.fail(statusError(response.status, text, response.headers.get("retry-after"), { url: request.url, keyHint: request.keyHint }))
        }
        if (!response.body) {
          return yield* Effect.fail(new ModelError({ kind: "protocol", retryable: true, message: `The model server at ${request.url} sent no body.` }))
        }
        return response.body
      })
      const stream = yield* open.pipe(
        Effect.retry({ schedule: retrySchedule(request.retry), times: request.retry.retries, while: (e) => e.retryable }),
      )
      const events = Stream.fromAsyncIterable(parseSse(stream), (e) =>
        new ModelError({
          kind: "network",
          retryable: false,
          message: `The model stream from ${request.url} broke off: ${e instanceof Error ? e.message : String(e)}`,
        }),
      )
      return Stream.concat(Stream.make<Array<SseEvent | ModelEvent>>({ type: "request", bytes, attempt }), events)
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
          : new ModelError({ kind: "protocol", retryable: false, message: `Could not decode the model stream: ${e instanceof Error ? e.message : String(e)}` }),
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
    readonly decoder: () => SseDecoder
  },
): LanguageModelShape => {
  const keyHint = options.keyEnv ? `Check ${options.keyEnv}.` : "Check the API key."
  return {
    id: `${options.provider}/${options.model}`,
    provider: options.provider,
    model: options.model,
    contextWindow: options.contextWindow,
    stream: (request) =>
      Stream.suspend(() =>
        decodeSse(
          streamSse(http, {
            url: wire.url,
            headers: wire.headers,
            body: wire.body(request),
            keyHint,
            retry: options.retry ?? DEFAULT_RETRY,
          }),
          wire.decoder(),
        ),
      ),
  }
}
