import type { Envelope } from "./envelope.ts"
import type { ExecutionMeta, MetaTruncation } from "./execution-meta.ts"
import type { RetrievalHint } from "./hint.ts"

/**
 * The execution_meta of one call, from its envelope and hints. Apart from execution-meta.ts, whose
 * Schemas only the agent's history decoding needs: a tool call builds the record, never the Schemas.
 */
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
