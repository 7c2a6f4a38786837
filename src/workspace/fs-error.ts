import type { PlatformError } from "effect/PlatformError"
import { hint } from "../protocol/hint.ts"
import { pathStop } from "./file-in-the-way.ts"
import { WorkspaceError } from "./workspace-error.ts"

/** The errno code (ENOENT, ELOOP, …) behind a platform error, when there is one. */
export const errnoOf = (error: PlatformError): string | undefined => {
  const reason = error.reason as { cause?: unknown; _tag?: string }
  const cause = reason.cause as { code?: unknown } | undefined
  return typeof cause?.code === "string" ? cause.code : undefined
}

/** A file-system failure on `shown` (a root-relative path), said so a model can act on it. */
export const fromPlatformError = (error: PlatformError, shown: string, absolute?: string): WorkspaceError =>
  fromErrno(errnoOf(error) ?? (error.reason as { _tag?: string })._tag, shown, error.message, absolute)

const fail = (reason: WorkspaceError["reason"], message: string, field?: WorkspaceError["field"], path?: string): WorkspaceError =>
  new WorkspaceError({ reason, message, ...(field ? { field } : {}), ...(path !== undefined ? { path } : {}) })

/**
 * An errno code (or a platform error tag) on `shown`, said so a model can act
 * on it. The single place such errors are put into words. `absolute`, when
 * known, lets ENOTDIR name the file that stands where a folder should be.
 */
export const fromErrno = (code: string | undefined, shown: string, message: string, absolute?: string): WorkspaceError => {
  switch (code) {
    case "ENOENT":
    case "NotFound":
      return fail("missing", `No such file or directory: ${shown}`)
    case "EACCES":
    case "EPERM":
    case "PermissionDenied":
      // The path goes along: a look at its owner and mode is the next step.
      return fail("os_denied", `The operating system denied access to ${shown} (${code}).`, undefined, shown)
    case "EISDIR":
      return fail("is_directory", `${shown} is a directory, not a file.`)
    case "ENOTDIR":
      return notUnderAFile(shown, absolute)
    case "ELOOP":
      return fail("bad_path", `${shown} is a symbolic link loop (too many levels of symbolic links).`, { name: "path", problem: "symbolic link loop" })
    case "ENAMETOOLONG":
      return fail("bad_path", `The path ${shown} is too long for the file system.`, { name: "path", problem: "path too long" })
    case "ENOSPC":
      return fail("failed", `No space left on the device while writing ${shown}.`)
    case "EDQUOT":
      return fail("failed", `Disk quota exceeded while writing ${shown}.`)
    case "EFBIG":
      return fail("failed", `${shown} is too large for the file system.`)
    case "EROFS":
      return fail("os_denied", `${shown} is on a read-only file system.`)
    default:
      return fail("failed", `File system error on ${shown}: ${message}`)
  }
}

/**
 * ENOTDIR: a file stands where a folder of `shown` should be. The listing of the folder holding that file shows
 * it; when it cannot be told which one, the message says so and no listing is guessed.
 */
export const notUnderAFile = (shown: string, absolute: string | undefined): WorkspaceError => {
  const stop = absolute === undefined ? undefined : pathStop(absolute, shown)
  return stop?.inTheWay === undefined
    ? new WorkspaceError({ reason: "missing", message: `A component of ${shown} is not a directory.`, path: shown, hints: [] })
    : new WorkspaceError({
        reason: "missing",
        message: `${stop.inTheWay} is a file, not a folder, so ${shown} cannot be under it.`,
        path: shown,
        hints: [hint("LS", "medium", { path: stop.folder })],
      })
}
