import { randomUUID } from "node:crypto"
import type { TurnResult } from "../agent/events.ts"

/**
 * A turn the model's provider ended with an error, as Claude Code reports one: a synthetic assistant message
 * (model `<synthetic>`) carrying the error's text and its kind in `error`, then a result of subtype `success` with
 * `is_error: true`, the text in `result`, the HTTP status in `api_error_status` and `terminal_reason: "api_error"`.
 */

/** The SDK's SDKAssistantMessageError for each kind of ModelError (and the statuses that say more). */
const errorKind = (api: NonNullable<TurnResult["api_error"]>): string => {
  if (api.status === 529) return "overloaded"
  if (api.status === 404) return "model_not_found"
  switch (api.kind) {
    case "auth":
      return "authentication_failed"
    case "rate_limit":
      return "rate_limit"
    case "server":
      return "server_error"
    case "bad_request":
      return "invalid_request"
    default:
      return "unknown"
  }
}

/** Whether the result is one of an API error (told as Claude Code tells it). */
export const isApiError = (result: TurnResult): result is TurnResult & { readonly api_error: NonNullable<TurnResult["api_error"]> } =>
  result.reason === "model_error" && result.api_error !== undefined

/** The assistant message that goes before the result of an API error. */
export const apiErrorAssistant = (result: TurnResult & { readonly api_error: NonNullable<TurnResult["api_error"]> }): Record<string, unknown> => ({
  type: "assistant",
  message: {
    id: `msg_${randomUUID().replaceAll("-", "")}`,
    type: "message",
    role: "assistant",
    model: "<synthetic>",
    content: [{ type: "text", text: result.error ?? "The model request failed." }],
    stop_reason: "stop_sequence",
    stop_sequence: "",
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  },
  parent_tool_use_id: null,
  error: errorKind(result.api_error),
  is_api_error_message: true,
})

/** The result's fields that differ for an API error. */
export const apiErrorResult = (result: TurnResult & { readonly api_error: NonNullable<TurnResult["api_error"]> }): Record<string, unknown> => ({
  subtype: "success",
  is_error: true,
  result: result.error ?? "",
  api_error_status: result.api_error.status ?? null,
  terminal_reason: "api_error",
})
