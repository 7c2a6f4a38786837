import { EditError } from "../edit/edit-error.ts"
import type { ErrorCode } from "../protocol/error-code.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { translateDomainErrors } from "./domain-errors.ts"
import { workspaceToolError } from "./workspace-errors.ts"

const CODES: Readonly<Record<EditError["reason"], ErrorCode>> = {
  invalid_edit: "INVALID_PARAM",
  not_a_file: "INVALID_PARAM",
  too_large: "INVALID_PARAM",
  missing: "NOT_FOUND",
  is_directory: "IS_DIRECTORY",
  binary: "BINARY_FILE",
  stale: "CONFLICT",
  read_only: "PERMISSION_DENIED",
}

/** The edit domain's errors as envelope errors (one table for write, edit, multiedit and plugins' writes). */
export const editToolError = (e: EditError): ToolError =>
  toolError(CODES[e.reason], e.message, {
    ...(e.field ? { fieldErrors: [{ field: e.field.name, message: e.field.problem }] } : {}),
    ...(e.hints ? { hints: e.hints } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
    ...(e.path !== undefined ? { context: { path_resolved: e.path } } : {}),
  })

/** A tool's run with the edit domain's errors, and the workspace's beneath them, translated at the boundary. */
export const withEditErrors = translateDomainErrors<EditError | WorkspaceError>([EditError, WorkspaceError], (e) =>
  e instanceof EditError ? editToolError(e) : workspaceToolError(e),
)
