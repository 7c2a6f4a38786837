import { Data } from "effect"
import type { ErrorCode } from "./error-code.ts"
import type { FieldError } from "./envelope.ts"
import type { RetrievalHint } from "./hint.ts"

/**
 * The one typed failure a tool may produce. The pipeline maps it to an error
 * envelope (status "error", error.code = code) in one place; tools never build
 * error envelopes themselves.
 */
export class ToolError extends Data.TaggedError("ToolError")<{
  readonly code: ErrorCode
  readonly message: string
  readonly fieldErrors?: ReadonlyArray<FieldError>
  readonly retryable?: boolean
  /** Suggested next calls; rendered as the "Recommended next step" list. */
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** Extra context keys for the envelope (e.g. path_resolved). */
  readonly context?: Readonly<Record<string, unknown>>
  /** Extra lines for the error text (e.g. the closest candidate region of a file). */
  readonly details?: string
  /**
   * The next step in words, when no tool call helps (a rule only the user can change): it ends the text, and
   * the framework then guesses no call.
   */
  readonly nextStep?: string
}> {}

/** Shorthand constructor: `toolError("NOT_FOUND", "File not found: a.py", { hints })`. */
export const toolError = (
  code: ErrorCode,
  message: string,
  extra: Omit<ConstructorParameters<typeof ToolError>[0], "code" | "message"> = {},
): ToolError => new ToolError({ code, message, ...extra })

/** An INVALID_PARAM error naming the offending field. */
export const invalidParam = (field: string, message: string, hints?: ReadonlyArray<RetrievalHint>): ToolError =>
  new ToolError({
    code: "INVALID_PARAM",
    message: `Invalid parameter '${field}': ${message}`,
    fieldErrors: [{ field, message }],
    ...(hints ? { hints } : {}),
  })
