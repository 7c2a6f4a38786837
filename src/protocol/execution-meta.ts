import type { Envelope } from "./envelope.ts"
import type { RetrievalHint } from "./hint.ts"

/** The truncation record of execution_meta (spec 001). */
export interface MetaTruncation {
  readonly truncated: boolean
  /** Comma-separated causes: the tool's own ("line_limit") and the framework's ("output_spilled"). */
  readonly reason: string
  readonly shown_range?: { readonly start_line: number; readonly end_line: number }
  readonly total_estimate: number
}

/**
 * What the agent stores with a history item beside the raw envelope
 * (spec 001 `execution_meta`). Derived from the envelope and the result's
 * structured hints, never written by hand.
 */
export interface ExecutionMeta {
  readonly tool_name: string
  readonly tool_call_id: string
  readonly status: Envelope["status"]
  readonly truncation?: MetaTruncation
  readonly retrieval_hints?: ReadonlyArray<RetrievalHint>
  readonly error_code?: string
  readonly error_field?: string
  readonly [extra: string]: unknown
}

export const buildExecutionMeta = (input: {
  readonly toolTitle: string
  readonly callId: string
  readonly envelope: Envelope
  readonly hints: ReadonlyArray<RetrievalHint>
  readonly truncation?: MetaTruncation | undefined
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}): ExecutionMeta => {
  const { envelope } = input
  const field = envelope.error?.field_errors?.[0]?.field
  return {
    ...input.extra,
    tool_name: input.toolTitle,
    tool_call_id: input.callId,
    status: envelope.status,
    ...(input.truncation ? { truncation: input.truncation } : {}),
    ...(input.hints.length > 0 ? { retrieval_hints: input.hints } : {}),
    ...(envelope.error ? { error_code: envelope.error.code } : {}),
    ...(field ? { error_field: field } : {}),
  }
}
