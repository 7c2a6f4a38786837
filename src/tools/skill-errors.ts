import type { ErrorCode } from "../protocol/error-code.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import type { SkillFileError } from "../skills/skill-file-error.ts"

const CODES: Readonly<Record<SkillFileError["kind"], ErrorCode>> = {
  outside: "ACCESS_DENIED",
  nul_byte: "INVALID_PARAM",
  missing: "NOT_FOUND",
  directory: "IS_DIRECTORY",
  too_large: "INVALID_PARAM",
  binary: "BINARY_FILE",
}

const FIELD: Partial<Record<SkillFileError["kind"], string>> = {
  outside: "outside the skill's folder",
  nul_byte: "NUL byte",
  too_large: "file too large",
}

/** The skills domain's errors as envelope errors (the skill tool's one translation). */
export const skillToolError = (e: SkillFileError): ToolError => {
  const field = FIELD[e.kind]
  return toolError(CODES[e.kind], e.message, field ? { fieldErrors: [{ field: "file", message: field }] } : {})
}
