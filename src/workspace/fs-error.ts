import type { PlatformError } from "effect/PlatformError"
import { toolError, type ToolError } from "../protocol/tool-error.ts"

/** The errno code (ENOENT, ELOOP, …) behind a platform error, when there is one. */
export const errnoOf = (error: PlatformError): string | undefined => {
  const reason = error.reason as { cause?: unknown; _tag?: string }
  const cause = reason.cause as { code?: unknown } | undefined
  return typeof cause?.code === "string" ? cause.code : undefined
}

/**
 * Maps a file-system failure on `shown` (a root-relative path) to the envelope
 * error code a model can act on. The single place such errors are translated.
 */
export const fromPlatformError = (error: PlatformError, shown: string): ToolError =>
  fromErrno(errnoOf(error) ?? (error.reason as { _tag?: string })._tag, shown, error.message)

/**
 * Maps an errno code (or a platform error tag) on `shown` to the envelope
 * error code a model can act on. The single place such errors are translated.
 */
export const fromErrno = (code: string | undefined, shown: string, message: string): ToolError => {
  switch (code) {
    case "ENOENT":
    case "NotFound":
      return toolError("NOT_FOUND", `No such file or directory: ${shown}`)
    case "EACCES":
    case "EPERM":
    case "PermissionDenied":
      return toolError("PERMISSION_DENIED", `The operating system denied access to ${shown} (${code}).`)
    case "EISDIR":
      return toolError("IS_DIRECTORY", `${shown} is a directory, not a file.`)
    case "ENOTDIR":
      return toolError("NOT_FOUND", `A component of ${shown} is not a directory.`)
    case "ELOOP":
      return toolError("INVALID_PARAM", `${shown} is a symbolic link loop (too many levels of symbolic links).`, {
        fieldErrors: [{ field: "path", message: "symbolic link loop" }],
      })
    case "ENAMETOOLONG":
      return toolError("INVALID_PARAM", `The path ${shown} is too long for the file system.`, {
        fieldErrors: [{ field: "path", message: "path too long" }],
      })
    case "ENOSPC":
      return toolError("EXECUTION_ERROR", `No space left on the device while writing ${shown}.`)
    case "EDQUOT":
      return toolError("EXECUTION_ERROR", `Disk quota exceeded while writing ${shown}.`)
    case "EFBIG":
      return toolError("EXECUTION_ERROR", `${shown} is too large for the file system.`)
    case "EROFS":
      return toolError("PERMISSION_DENIED", `${shown} is on a read-only file system.`)
    default:
      return toolError("EXECUTION_ERROR", `File system error on ${shown}: ${message}`)
  }
}
