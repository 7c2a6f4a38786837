import { Effect } from "effect"
import { GitError } from "../git/git-error.ts"
import type { ErrorCode } from "../protocol/error-code.ts"
import { hint } from "../protocol/hint.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"

const CODES: Readonly<Record<GitError["kind"], ErrorCode>> = {
  not_a_repository: "NOT_FOUND",
  outside_project: "ACCESS_DENIED",
  other_repository: "CONFLICT",
  failed: "EXECUTION_ERROR",
  timeout: "TIMEOUT",
}

// A failure git explained only in its own words (quoted in the message: a full disk, a lock, a refused hook): the
// repository's state after it is the next look.
const LOOK = hint("GitStatus", "medium", {})

/** The git domain's errors as envelope errors (one table for every git tool). */
export const gitToolError = (e: GitError): ToolError => {
  const hints = e.hints ?? (e.kind === "failed" || e.kind === "timeout" ? [LOOK] : undefined)
  return toolError(CODES[e.kind], e.message, { ...(hints ? { hints } : {}), ...(e.details ? { details: e.details } : {}) })
}

/** A git tool's run with the domain's errors translated at the boundary. */
export const withGitErrors = <A, R>(effect: Effect.Effect<A, GitError | ToolError, R>): Effect.Effect<A, ToolError, R> =>
  Effect.mapError(effect, (e) => (e instanceof GitError ? gitToolError(e) : e))
