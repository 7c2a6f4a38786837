import type { ErrorCode } from "../protocol/error-code.ts"
import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import type { PatchProblem } from "../patch/patch-problem.ts"
import type { PatchTargetError } from "../patch/patch-target-error.ts"

const PROBLEM_CODES: Readonly<Record<PatchProblem["kind"], ErrorCode>> = {
  malformed: "INVALID_PARAM",
  does_not_apply: "CONFLICT",
  binary: "BINARY_FILE",
  internal: "INTERNAL_ERROR",
}

/** A parse or apply problem as the tool's error, with the hint a model can act on. */
export const problemToError = (p: PatchProblem): ToolError => {
  const code = PROBLEM_CODES[p.kind]
  const { path, fileLine, details, line } = p.extra
  const hints: Array<RetrievalHint> = path
    ? [
        hint("Read", "high", { path, offset: Math.max(0, (fileLine ?? 1) - 6), limit: 20 }),
        hint("Patch", "medium", { patch: "<the patch with this hunk's context corrected>", dry_run: true }),
      ]
    : p.kind === "binary"
      ? [hint("Patch", "medium", { patch: "<the patch without its binary changes>", dry_run: true })]
      : []
  return toolError(code, p.message, {
    ...(code === "INVALID_PARAM" ? { fieldErrors: [{ field: "patch", message: line !== undefined ? `line ${line}: ${firstClause(p.message)}` : firstClause(p.message) }] } : {}),
    ...(hints.length > 0 ? { hints } : {}),
    ...(details ? { details } : {}),
    ...(path ? { context: { path_resolved: path } } : {}),
  })
}

const firstClause = (message: string) => message.replace(/^Patch line \d+: /, "").replace(/ Nothing was changed\.$/, "")

const TARGET_CODES: Readonly<Record<PatchTargetError["kind"], ErrorCode>> = {
  refused: "ACCESS_DENIED",
  directory: "IS_DIRECTORY",
  not_a_file: "INVALID_PARAM",
  too_large: "INVALID_PARAM",
  binary: "BINARY_FILE",
  missing: "NOT_FOUND",
  exists: "CONFLICT",
  mismatch: "CONFLICT",
  read_only: "PERMISSION_DENIED",
}

/** A file the patch cannot change as it says, as the tool's error. */
export const targetToError = (e: PatchTargetError): ToolError => {
  const hints = e.hints ?? lookAt(e)
  return toolError(TARGET_CODES[e.kind], e.message, {
    ...(e.refusedPath !== undefined ? { fieldErrors: [{ field: "patch", message: `refused path ${e.refusedPath}` }] } : {}),
    ...(hints ? { hints } : {}),
    ...(e.kind === "too_large" ? { nextStep: "raise tools.patch.max_file_bytes in anvil.json, or apply the patch with git apply through Bash." } : {}),
    ...(e.context ? { context: e.context } : {}),
  })
}

/** The next step for a target the domain gave none: a look at the file named (a folder's listing, a special file's kind, a file's text). */
const lookAt = (e: PatchTargetError): ReadonlyArray<RetrievalHint> | undefined => {
  const path = e.context?.["path_resolved"]
  if (typeof path !== "string") return undefined
  if (e.kind === "directory") return [hint("LS", "medium", { path })]
  if (e.kind === "not_a_file") return [hint("Bash", "medium", { command: `ls -ld ${shellQuote(path)}` })]
  if (e.kind === "mismatch") return [hint("Read", "high", { path })]
  return undefined
}
