import { Duration, Effect, Stream } from "effect"
import { ModelError, type ModelEvent } from "./model.ts"

/** How often and how long a model request is retried (429, 5xx, network failures, a stream that fails before its answer). */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number
  /** First backoff delay; doubles on each retry. */
  readonly baseDelayMs: number
  /** The longest wait before a retry: the backoff stops growing there, and a server asking for a longer Retry-After is not retried. */
  readonly maxDelayMs: number
}

// 60 s: the longest Retry-After the OpenAI SDKs honour (and the Anthropic SDK did) before doing something else.
export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 60_000 }

/** The wait a response asks for: `retry-after-ms` (OpenAI's and Anthropic's), else `Retry-After` as seconds or an HTTP date. */
export const parseRetryAfter = (headers: { readonly get: (name: string) => string | null }, now: number): number | undefined => {
  const ms = headers.get("retry-after-ms")?.trim()
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = headers.get("retry-after")?.trim()
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The wait before retry number `attempt` (1-based): Retry-After when the server gave one, else doubling from the base, capped. */
export const retryDelay = (policy: RetryPolicy, attempt: number, error: ModelError): number =>
  error.retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))

const waitText = (ms: number) => {
  const s = ms / 1000
  if (ms < 1000) return `${Math.round(ms)} ms`
  const exact = Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`
  return s < 120 ? exact : s < 7200 ? `${exact} (about ${Math.round(s / 60)} min)` : `${exact} (about ${(s / 3600).toFixed(1)} h)`
}

/** The error for a server that asked for a longer wait than the policy allows: retrying earlier would only be refused again. */
const waitTooLong = (policy: RetryPolicy, error: ModelError, asked: number): ModelError =>
  new ModelError({
    kind: error.kind,
    ...(error.status !== undefined ? { status: error.status } : {}),
    retryAfterMs: asked,
    retryable: false,
    ...(error.overloaded ? { overloaded: true } : {}),
    message:
      `${error.message} The server asked to wait ${waitText(asked)} before trying again (Retry-After), longer than the ${waitText(policy.maxDelayMs)} anvil waits at most, ` +
      `so it was not retried. Next step: try again after that time, or raise model_retry.max_delay_ms in anvil.json to wait for it.`,
  })

/**
 * Events that show the user part of the answer. Once one of them has gone out, a retry would repeat output already
 * seen (and a cut answer could not be told from a whole one), so a failure after it ends the turn.
 */
const isAnswer = (event: ModelEvent): boolean => event.type !== "raw" && event.type !== "request" && event.type !== "usage" && event.type !== "retry"

/**
 * Runs `attempt(1)`, and while an attempt fails with a retryable error before any of its answer came (a 429 or 5xx,
 * a refused connection, an overloaded or server error sent in the stream, a connection dropped before the first
 * delta), announces a `retry` event, waits (Retry-After, else backoff) and runs the next, up to `policy.retries` times.
 */
export const withRetries = (policy: RetryPolicy, attempt: (n: number) => Stream.Stream<ModelEvent, ModelError>): Stream.Stream<ModelEvent, ModelError> => {
  const run = (n: number): Stream.Stream<ModelEvent, ModelError> =>
    Stream.suspend(() => {
      let answered = false
      return attempt(n).pipe(
        Stream.tap((event) => Effect.sync(() => void (answered ||= isAnswer(event)))),
        Stream.catch((error: ModelError) => {
          if (answered || !error.retryable || n > policy.retries) return Stream.fail(error)
          const delayMs = retryDelay(policy, n, error)
          if (delayMs > policy.maxDelayMs) return Stream.fail(waitTooLong(policy, error, delayMs))
          return Stream.concat(
            Stream.make<Array<ModelEvent>>({ type: "retry", attempt: n, maxRetries: policy.retries, delayMs, error }),
            Stream.unwrap(Effect.as(Effect.sleep(Duration.millis(delayMs)), run(n + 1))),
          )
        }),
      )
    })
  return run(1)
}
