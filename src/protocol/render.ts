import type { EnvelopeError, Status } from "./envelope.ts"
import { renderHints, type RetrievalHint } from "./hint.ts"

/**
 * `s.trimEnd()` that looks at the last character first: a long text built by
 * concatenation is then not copied whole only to find nothing to trim.
 */
const trimEnd = (s: string): string => (s.slice(-1).trimEnd() === "" ? s.trimEnd() : s)

const join = (...parts: ReadonlyArray<string>) => parts.filter((p) => p !== "").join("\n\n")

/**
 * The model-visible text of a success or partial result, in the
 * layout: `# Header`, the body, and for partial results the hint list.
 */
export const renderResultText = (
  header: string,
  body: string,
  status: Exclude<Status, "error">,
  hints: ReadonlyArray<RetrievalHint>,
): string => join(`# ${header}`, trimEnd(body), status === "partial" ? renderHints(hints) : "")

const pyBool = (b: boolean) => (b ? "True" : "False")

/** The model-visible text of an error: code, message, retryable, field errors, hints. */
export const renderErrorText = (
  title: string,
  error: EnvelopeError,
  hints: ReadonlyArray<RetrievalHint>,
  details = "",
  nextStep?: string,
): string =>
  join(
    `# ${title} Error`,
    [`Code: ${error.code}`, `Message: ${error.message}`, `Retryable: ${pyBool(error.retryable ?? false)}`].join("\n"),
    error.field_errors && error.field_errors.length > 0
      ? `Field errors:\n${error.field_errors.map((f) => `- ${f.field}: ${f.message}`).join("\n")}`
      : "",
    trimEnd(details),
    renderHints(hints),
    nextStep === undefined ? "" : `Next step: ${nextStep}`,
  )
