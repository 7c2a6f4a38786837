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
export type RetrievalHint = typeof RetrievalHint.Type

export const hint = (
  action: string,
  priority: RetrievalHint["priority"],
  args: Record<string, unknown>,
): RetrievalHint => ({ action, priority, args })

const renderArg = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? "null"

/** `Read(file_path="a.py", offset=2)` — the call syntax models know. */
export const renderHint = (h: RetrievalHint): string =>
  `${h.action}(${Object.entries(h.args)
    .map(([k, v]) => `${k}=${renderArg(v)}`)
    .join(", ")})`

export const renderHints = (hints: ReadonlyArray<RetrievalHint>): string =>
  hints.length === 0
    ? ""
    : `Recommended next step (token-efficient):\n${hints.map((h) => `* ${renderHint(h)}`).join("\n")}`
