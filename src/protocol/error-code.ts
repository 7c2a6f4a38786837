/**
 * The machine-readable error codes of an envelope (plus the
 * network codes anvil adds). One list, so every producer and the renderer
 * agree on spelling.
 */
export const ERROR_CODES = [
  "NOT_FOUND",
  "ACCESS_DENIED",
  "PERMISSION_DENIED",
  "INVALID_PARAM",
  "TIMEOUT",
  "INTERNAL_ERROR",
  "EXECUTION_ERROR",
  "CONFLICT",
  "IS_DIRECTORY",
  "BINARY_FILE",
  "NETWORK_ERROR",
  "RATE_LIMIT",
  "CANCELLED",
  // An extension (a plugin tool) answered with something outside the envelope contract: a bug in it, named.
  "INVALID_RESULT",
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** Whether retrying the same call unchanged may succeed, when the producer does not say. */
export const defaultRetryable = (code: ErrorCode): boolean =>
  code === "TIMEOUT" || code === "NETWORK_ERROR" || code === "RATE_LIMIT"
