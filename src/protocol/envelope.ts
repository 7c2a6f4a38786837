import { Schema } from "effect"
import { ERROR_CODES } from "./error-code.ts"

/**
 * The standard tool-response envelope. Every tool result, from a
 * built-in, a plugin or an MCP server, leaves the pipeline in this shape and no
 * other: exactly these top-level keys, `data` never null, `error` present
 * exactly when status is "error".
 */
export const Status = Schema.Literals(["success", "partial", "error"])
export type Status = typeof Status.Type

export const FieldError = Schema.Struct({ field: Schema.String, message: Schema.String })
export type FieldError = typeof FieldError.Type

export const EnvelopeError = Schema.Struct({
  code: Schema.Literals(ERROR_CODES),
  message: Schema.String,
  field_errors: Schema.optionalKey(Schema.Array(FieldError)),
  retryable: Schema.optionalKey(Schema.Boolean),
})
export type EnvelopeError = typeof EnvelopeError.Type

export const Stats = Schema.StructWithRest(Schema.Struct({ time_ms: Schema.Number }), [
  Schema.Record(Schema.String, Schema.Union([Schema.Number, Schema.String])),
])
export type Stats = typeof Stats.Type

export const EnvelopeContext = Schema.StructWithRest(
  Schema.Struct({
    cwd: Schema.String,
    params_input: Schema.Unknown,
    path_resolved: Schema.optionalKey(Schema.String),
    truncation_skip: Schema.optionalKey(Schema.Boolean),
  }),
  [Schema.Record(Schema.String, Schema.Unknown)],
)
export type EnvelopeContext = typeof EnvelopeContext.Type

const EnvelopeShape = Schema.Struct({
  status: Status,
  data: Schema.Record(Schema.String, Schema.Unknown),
  text: Schema.String,
  error: Schema.optionalKey(EnvelopeError),
  stats: Stats,
  context: EnvelopeContext,
})

/** The envelope schema, including the rule that `error` goes with status "error" only. */
export const Envelope = EnvelopeShape.check(
  Schema.makeFilter((e) =>
    (e.status === "error") === (e.error !== undefined)
      ? e.error !== undefined && e.error.message.trim() === ""
        ? "error.message must say what went wrong (it is empty)"
        : undefined
      : "error must be present exactly when status is \"error\"",
  ),
)
export type Envelope = typeof EnvelopeShape.Type

const decodeEnvelope = Schema.decodeUnknownExit(Envelope, { onExcessProperty: "error", errors: "all" })

/** Checks a value against the envelope contract; returns the problems found (empty when valid). */
export const envelopeProblems = (value: unknown): ReadonlyArray<string> => {
  const exit = decodeEnvelope(value)
  if (exit._tag === "Success") return []
  return [String(exit.cause)]
}
