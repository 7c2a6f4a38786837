import { Schema } from "effect"
import { Status } from "./envelope.ts"
import { RetrievalHint } from "./hint-schema.ts"

/** The truncation record of execution_meta. */
export const MetaTruncation = Schema.Struct({
  truncated: Schema.Boolean,
  /** Comma-separated causes: the tool's own ("line_limit") and the framework's ("output_spilled"). */
  reason: Schema.String,
  shown_range: Schema.optionalKey(Schema.Struct({ start_line: Schema.Number, end_line: Schema.Number })),
  total_estimate: Schema.Number,
})
export type MetaTruncation = typeof MetaTruncation.Type

/**
 * What the agent stores with a history item beside the raw envelope
 * (`execution_meta`). Derived from the envelope and the result's
 * structured hints, never written by hand.
 */
export const ExecutionMeta = Schema.StructWithRest(
  Schema.Struct({
    tool_name: Schema.String,
    tool_call_id: Schema.String,
    status: Status,
    truncation: Schema.optionalKey(MetaTruncation),
    retrieval_hints: Schema.optionalKey(Schema.Array(RetrievalHint)),
    error_code: Schema.optionalKey(Schema.String),
    error_field: Schema.optionalKey(Schema.String),
  }),
  [Schema.Record(Schema.String, Schema.Unknown)],
)
export type ExecutionMeta = typeof ExecutionMeta.Type
