import type { RetrievalHint as RetrievalHintSchema } from "./hint-schema.ts"

/**
 * A retrieval hint: a suggested next tool call (its Schema, in hint-schema.ts, is built only where
 * a history is decoded; making hints and rendering them needs none).
 */
export type RetrievalHint = typeof RetrievalHintSchema.Type

export const hint = (
  action: string,
  priority: RetrievalHint["priority"],
  args: Record<string, unknown>,
): RetrievalHint => ({ action, priority, args })

/** A word for a Bash hint's command line: single-quoted, so spaces and `$` in a path or URL stay literal. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

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
