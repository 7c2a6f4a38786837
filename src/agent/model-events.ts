import { Cause } from "effect"
import type { ModelError, ModelEvent } from "../llm/model.ts"
import type { AgentEvent, TurnResult } from "./events.ts"

/** What the front ends see of a model's stream event during step `step` (undefined: nothing; the loop keeps the rest). */
export const agentEventOf = (event: ModelEvent, step: number): AgentEvent | undefined => {
  switch (event.type) {
    case "text_delta":
      return { type: "text_delta", text: event.text }
    case "thinking_delta":
      return { type: "thinking_delta", text: event.text }
    case "raw":
      return { type: "raw", data: event.data }
    case "request":
      return { type: "model_request", step, bytes: event.bytes, attempt: event.attempt }
    case "retry":
      return {
        type: "retry",
        attempt: event.attempt,
        max_retries: event.maxRetries,
        delay_ms: event.delayMs,
        message: event.error.message,
        ...(event.error.status !== undefined ? { status: event.error.status } : {}),
      }
    case "fallback":
      return { type: "model_fallback", from: event.from, to: event.to, message: event.error.message }
    default:
      return undefined
  }
}

/**
 * Why a model request failed: the provider's error (its kind and HTTP status go in the result's `api_error`), or a
 * defect; undefined when it was interrupted (the turn was cancelled).
 */
export const requestFailure = (cause: Cause.Cause<ModelError>): { readonly message: string; readonly apiError: NonNullable<TurnResult["api_error"]> } | undefined => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure) {
    const { kind, status } = failure.error
    return { message: failure.error.message, apiError: { kind, ...(status !== undefined ? { status } : {}) } }
  }
  if (cause.reasons.some(Cause.isInterruptReason) && !cause.reasons.some(Cause.isDieReason)) return undefined
  return { message: `The model request failed: ${Cause.pretty(cause)}`, apiError: { kind: "unknown" } }
}
