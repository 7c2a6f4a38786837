import { hint } from "../protocol/hint.ts"
import { inTheWayNote } from "../workspace/file-in-the-way.ts"
import { translateDomainErrors } from "./domain-errors.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import {
  GrepBinaryFile,
  GrepIncludeInvalid,
  GrepInsideGit,
  GrepNotSearchable,
  GrepPathNotFound,
  GrepPatternInvalid,
  GrepTimedOut,
  type GrepError,
} from "../search/grep-error.ts"
import { GlobFolderNotFound, GlobInvalid, GlobNotAFolder, type GlobError } from "../search/glob-error.ts"

/** What of the call the errors' suggestions repeat. */
interface GrepCall {
  readonly pattern: string
  readonly path?: string | undefined
  readonly include?: string | undefined
}

const parentDisplay = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : ".")

/** ripgrep's refusal of a pattern that names a line break (both engines give it). */
const LINE_BREAK = /the literal "\\n" is not allowed/

/**
 * A pattern with a line break: grep matches one line at a time (multiline
 * search is not offered), so the next step is the pattern's first line with
 * the lines after each match as context.
 */
const acrossLines = (call: GrepCall): ToolError => {
  const parts = call.pattern.split(/\\n|\n/)
  const first = parts.find((p) => p.trim() !== "")
  // The first line's part is offered only when it stands as a pattern of its own (no group or class cut open).
  const balanced = first !== undefined && !/[([{]/.test(first.replace(/\\./g, ""))
  const message = "grep matches one line at a time, so a pattern cannot match a line break (\\n); search for one line of it and read the lines after each match with after_context."
  return toolError("INVALID_PARAM", `Invalid regex pattern: ${message}`, {
    fieldErrors: [{ field: "pattern", message: "contains a line break (\\n): grep matches within one line" }],
    hints: [
      hint("Grep", "high", {
        pattern: balanced ? first : "<one line of the pattern>",
        ...(call.path ? { path: call.path } : {}),
        ...(call.include ? { include: call.include } : {}),
        after_context: Math.min(20, Math.max(1, parts.length - 1)),
      }),
    ],
  })
}

/** The grep domain's errors as envelope errors (the one place for the grep tool). */
export const grepToolError = (e: GrepError, call: GrepCall): ToolError => {
  switch (e._tag) {
    case "GrepIncludeInvalid":
      return invalidParam("include", e.message)
    case "GrepPathNotFound":
      return toolError("NOT_FOUND", `No such file or directory: ${e.shown}${inTheWayNote(e.inTheWay)}`, {
        hints: [hint("LS", "medium", { path: e.folder ?? parentDisplay(e.shown) }), hint("Glob", "medium", { pattern: `**/${e.shown.split("/").pop()}` })],
        context: { path_resolved: e.shown },
      })
    case "GrepInsideGit":
      return toolError("INVALID_PARAM", "Invalid parameter 'path': grep never searches inside .git; use the git tools.", {
        fieldErrors: [{ field: "path", message: "inside .git" }],
        hints: [hint("GitLog", "medium", {})],
      })
    case "GrepNotSearchable":
      return toolError("INVALID_PARAM", `Invalid parameter 'path': ${e.shown} is not a regular file or a folder.`, {
        fieldErrors: [{ field: "path", message: "not a regular file or folder" }],
        context: { path_resolved: e.shown },
      })
    case "GrepBinaryFile":
      return toolError("BINARY_FILE", `${e.shown} is a binary file (it contains NUL bytes); grep searches text.`, { context: { path_resolved: e.shown } })
    case "GrepPatternInvalid":
      if (LINE_BREAK.test(e.reason)) return acrossLines(call)
      return toolError("INVALID_PARAM", `Invalid regex pattern: ${e.message}`, {
        fieldErrors: [{ field: "pattern", message: e.reason }],
        hints: [hint("Grep", "high", { pattern: e.unsupported ? "<pattern without that construct>" : "<corrected pattern>", ...(call.path ? { path: call.path } : {}) })],
        ...(e.unsupported ? { details: "The built-in search (ripgrep is not available) cannot run this construct faithfully." } : {}),
      })
    case "GrepTimedOut":
      return toolError("TIMEOUT", `The search for '${call.pattern}' in '${e.shown}' found nothing before the ${e.timeoutMs} ms timeout.`, {
        retryable: true,
        hints: [hint("Grep", "high", { pattern: call.pattern, path: "<narrower folder>", ...(call.include ? { include: call.include } : { include: "*.<ext>" }) })],
        context: { path_resolved: e.shown },
      })
  }
}

/** A grep with the domain's errors translated at the boundary (the workspace's pass through). */
export const withGrepErrors = translateDomainErrors(
  [GrepIncludeInvalid, GrepPathNotFound, GrepInsideGit, GrepNotSearchable, GrepBinaryFile, GrepPatternInvalid, GrepTimedOut],
  grepToolError,
)

/** What of a glob call the errors' suggestions repeat. */
interface GlobCall {
  readonly pattern: string
  readonly path?: string | undefined
}

/** The glob's errors as envelope errors (the one place for the glob tool). */
export const globToolError = (e: GlobError, call: GlobCall): ToolError => {
  switch (e._tag) {
    case "GlobInvalid":
      return invalidParam("pattern", e.message, [hint("Glob", "high", { pattern: "**/*.<ext>", path: call.path ?? "." })])
    case "GlobFolderNotFound":
      return toolError("NOT_FOUND", `Directory not found: ${e.shown}${inTheWayNote(e.inTheWay)}`, {
        hints: [hint("LS", "medium", { path: e.folder ?? parentDisplay(e.shown) })],
        context: { path_resolved: e.shown },
      })
    case "GlobNotAFolder":
      return toolError("INVALID_PARAM", `Invalid parameter 'path': '${e.shown}' is a file, not a directory; glob searches folders.`, {
        fieldErrors: [{ field: "path", message: "not a directory" }],
        hints: [hint("Read", "high", { path: e.shown }), hint("Glob", "medium", { pattern: call.pattern, path: "." })],
        context: { path_resolved: e.shown },
      })
  }
}

/** A glob with the domain's errors translated at the boundary (the workspace's pass through). */
export const withGlobErrors = translateDomainErrors([GlobInvalid, GlobFolderNotFound, GlobNotAFolder], globToolError)
