import type { PlatformError } from "effect/PlatformError"
import { hint, shellQuote } from "../protocol/hint.ts"
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
 * known, lets ENOTDIR name the file that stands where a folder should be. `field` is the parameter that named
 * the path (patch's is `patch`).
 */
export const fromErrno = (code: string | undefined, shown: string, message: string, absolute?: string, field = "path"): WorkspaceError => {
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
      return fail("bad_path", `${shown} is a symbolic link loop (too many levels of symbolic links).`, { name: field, problem: "symbolic link loop" })
    case "ENAMETOOLONG":
      return fail("bad_path", `The path ${shown} is too long for the file system.`, { name: field, problem: "path too long" })
    case "ENXIO":
    case "ENODEV":
      // What open(2) says of a socket, or of a device file with nothing behind it: no file to read or write.
      return fail("not_usable", `${shown} is not a regular file (a socket, or a device with nothing behind it).`, { name: field, problem: "not a regular file" })
    case "ENOSPC":
      return onDisk("failed", `No space left on the device while writing ${shown}.`, shown, "df -h")
    case "EDQUOT":
      return onDisk("failed", `Disk quota exceeded while writing ${shown}.`, shown, "df -h")
    case "EFBIG":
      // Past the file system's largest file, or the process's file-size limit (ulimit -f).
      return onDisk("failed", `${shown} is larger than the file system, or the file-size limit (ulimit -f), allows.`, shown, "ulimit -f; df -hT")
    case "EROFS":
      return onDisk("os_denied", `${shown} is on a read-only file system.`, shown, "df -h")
    default:
      return new WorkspaceError({ reason: "failed", message: `File system error on ${shown}: ${message}`, path: shown, hints: [look("ls -ld", shown)] })
  }
}

/** A command's look at `path` (`ls -ld 'a b.txt'`). */
const look = (command: string, path: string) => hint("Bash", "medium", { command: `${command} ${shellQuote(path)}` })

/**
 * A failure of the file system that holds `shown` (full, over quota, read-only): the next step is a look at that
 * file system, not at the file. A file in the project is looked at from the project (its own folders may be the
 * ones that could not be made); one outside it (anvil's state folder) from its folder.
 */
const onDisk = (reason: WorkspaceError["reason"], message: string, shown: string, command: string): WorkspaceError => {
  const folder = shown.startsWith("/") ? shown.slice(0, shown.lastIndexOf("/")) || "/" : "."
  return new WorkspaceError({ reason, message, path: shown, hints: [look(command, folder)] })
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
