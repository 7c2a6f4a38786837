import { Schema } from "effect"

/**
 * A retrieval hint: a suggested
 * next tool call. Hints are data first; the "Recommended next step" list in
 * the model-visible text is rendered from them.
 */
export const RetrievalHint = Schema.Struct({
  /** The tool title the model knows, e.g. "Read", "Grep", "LS". */
  action: Schema.String,
  priority: Schema.Literals(["high", "medium", "low"]),
  args: Schema.Record(Schema.String, Schema.Unknown),
})
