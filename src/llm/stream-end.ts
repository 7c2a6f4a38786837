import { ModelError } from "./model.ts"

/** The event name a JSON answer (a server that ignored `stream: true`) is handed to the decoder under, whole. */
export const WHOLE_ANSWER = "anvil-whole-answer"

/**
 * The error for a model stream that closed before its terminator arrived: `seen` tells a cut-off answer from a
 * body that held no stream events at all (not a model endpoint); `whole` is a JSON answer that held no answer.
 */
export const unfinishedStream = (seen: boolean, terminator: string, whole?: string): ModelError =>
  new ModelError({
    kind: "protocol",
    // A stream cut after its first events is a dropped connection, worth another attempt while none of the answer came;
    // a body with no events, or JSON that is no answer, would come back the same.
    retryable: seen && whole === undefined,
    message:
      whole !== undefined
        ? `The model server answered with JSON that is not a complete answer: ${whole.replace(/\s+/g, " ").slice(0, 300)}. Check that the base URL is a model endpoint of this provider's API.`
        : seen
          ? `The model stream ended before the answer was complete (no ${terminator} arrived): the server or a proxy cut it off.`
          : "The model server's answer held no stream events (text/event-stream `data:` lines): check that the base URL is a streaming model endpoint.",
  })

/**
 * The error a server reported inside its stream (an SSE `error` event, a chunk holding `error`). One that may heal —
 * overloaded, rate limited, a failure on the server's side (Anthropic's overloaded_error, rate_limit_error, api_error;
 * OpenAI-compatible servers' server_error or a 408/409/429/5xx code) — is retryable as its HTTP form is; any other
 * (an invalid request, a refused key, a context too long) is not.
 */
export const streamError = (prefix: string, error: unknown): ModelError => {
  const e = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {}
  const text = typeof error === "string" ? error : typeof e.message === "string" ? e.message : JSON.stringify(error)
  const type = [e.type, e.code, e.status].filter((v) => typeof v === "string").join(" ")
  const status = [e.code, e.status].map(Number).find((n) => Number.isInteger(n) && n >= 400 && n < 600)
  const busy = status === 429 || status === 529 || /rate.?limit|overloaded/i.test(type)
  const failed = (status !== undefined && (status >= 500 || status === 408 || status === 409)) || /api_error|server_error|internal|unavailable|timeout/i.test(type)
  const overloaded = status === 529 || status === 503 || /overloaded/i.test(type)
  return new ModelError({ kind: busy ? "rate_limit" : "server", retryable: busy || failed, ...(overloaded ? { overloaded } : {}), message: `${prefix}: ${text}` })
}
