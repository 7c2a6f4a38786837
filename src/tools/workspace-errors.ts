import type { ErrorCode } from "../protocol/error-code.ts"
import { hint } from "../protocol/hint.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { translateDomainErrors } from "./domain-errors.ts"

const CODES: Readonly<Record<WorkspaceError["reason"], ErrorCode>> = {
  missing: "NOT_FOUND",
  os_denied: "PERMISSION_DENIED",
  is_directory: "IS_DIRECTORY",
  bad_path: "INVALID_PARAM",
  outside_root: "ACCESS_DENIED",
  protected: "ACCESS_DENIED",
  changed: "CONFLICT",
  not_usable: "INVALID_PARAM",
  failed: "EXECUTION_ERROR",
}

// The next step after a path outside the project: look at what is inside it.
const INSIDE = hint("LS", "medium", { path: "." })

/** The workspace's errors as envelope errors (one table for every tool that touches files). */
export const workspaceToolError = (e: WorkspaceError): ToolError =>
  toolError(CODES[e.reason], e.message, {
    ...(e.field ? { fieldErrors: [{ field: e.field.name, message: e.field.problem }] } : {}),
    // A file changed under a change: doing it again on the new content may well succeed.
    ...(e.reason === "changed" ? { retryable: true } : {}),
    ...(e.hints ? { hints: e.hints } : e.reason === "outside_root" ? { hints: [INSIDE] } : {}),
    // A protected file is refused whatever the call: not "another path", but the file left as it is (the message says who can change it).
    ...(e.reason === "protected" ? { nextStep: "go on without changing it; only the user can, as said above." } : {}),
    ...(e.path !== undefined || e.protectedPath
      ? { context: { ...(e.path !== undefined ? { path_resolved: e.path } : {}), ...(e.protectedPath ? { protected: e.protectedPath } : {}) } }
      : {}),
  })

/** A tool's run with the workspace's errors translated at the boundary. */
export const withWorkspaceErrors = translateDomainErrors([WorkspaceError], workspaceToolError)
