import { Data } from "effect"

/** The working directory does not exist (`opened`: it vanished between the check and opening it). */
export class WorkdirNotFound extends Data.TaggedError("WorkdirNotFound")<{
  readonly cwd: string
  readonly opened: boolean
  /** The file standing where one of its folders should be, if one does. */
  readonly inTheWay?: string
  /** The nearest folder that exists (the one to list), when known. */
  readonly folder?: string
}> {}

/** The working directory is not a directory. */
export class WorkdirNotDirectory extends Data.TaggedError("WorkdirNotDirectory")<{ readonly cwd: string }> {}

/**
 * The command sandbox cannot confine the command as the settings ask: on this machine (`machine`) or under the
 * permission rules (`rules`), with the user's next step (see sandbox.ts SandboxUnavailableError).
 */
export class SandboxRefused extends Data.TaggedError("SandboxRefused")<{
  readonly message: string
  readonly cwd: string
  readonly refusedBy: "machine" | "rules"
  readonly nextStep: string
}> {}

/** The program could not be started: not found, not executable, or another spawn failure. */
export class CommandNotStarted extends Data.TaggedError("CommandNotStarted")<{
  readonly kind: "not_found" | "not_executable" | "other"
  readonly file: string
  readonly message: string
  readonly cwd: string
}> {}

/** The timeout expired before the command printed anything (the whole process group was ended). */
export class CommandTimedOut extends Data.TaggedError("CommandTimedOut")<{
  readonly timeoutMs: number
  readonly maxTimeoutMs: number
  readonly cwd: string
}> {}

/** A command cannot run in the background here: the runtime ends with the call, or its output file cannot be made. */
export class BackgroundUnavailable extends Data.TaggedError("BackgroundUnavailable")<{ readonly cwd: string; readonly reason?: string }> {}

/** No background command of this id in the session. */
export class NoSuchBackgroundShell extends Data.TaggedError("NoSuchBackgroundShell")<{ readonly id: string; readonly known: ReadonlyArray<string> }> {}

/** Every way running a shell command fails to give a result. */
export type ShellError = WorkdirNotFound | WorkdirNotDirectory | SandboxRefused | CommandNotStarted | CommandTimedOut | BackgroundUnavailable
