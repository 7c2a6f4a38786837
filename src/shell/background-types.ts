import type { Effect } from "effect"
import type { Excerpt } from "../process/output-excerpt.ts"
import type { SandboxRefusal } from "../sandbox/diagnose.ts"
import type { WorkspaceError } from "../workspace/workspace-error.ts"
import type { LiveOutput } from "./live-output.ts"
import type { CommandRequest, ConfinedRun } from "./run-shell.ts"
import type { NoSuchBackgroundShell, ShellError } from "./shell-error.ts"

/** The shapes of background commands (see background-shells.ts): what is asked, what is answered, the service. */

/** Why a command could not be started (or run). */
export type StartError = ShellError | WorkspaceError

/** How a background command ended, once it did. */
export interface BackgroundEnd {
  /** As `$?` shows it (128 + N for signal N, see process/exit-status.ts); null when it did not run to its end. */
  readonly exitCode: number | null
  /** The signal that ended it, confined or not. */
  readonly signal: string | null
  /** Ended by its timeout. */
  readonly timedOut: boolean
  /** Ended on request (stop, or the session's end). */
  readonly stopped: boolean
  /** Ended by anvil because its output reached the cap. */
  readonly capped: boolean
  /** It could not be started, or failed to run: why. */
  readonly error?: StartError
  readonly refusals: ReadonlyArray<SandboxRefusal>
  readonly durationMs: number
}

/** A background command as results describe it. */
export interface BackgroundShellView {
  readonly id: string
  /** Its command line (or argv), as given. */
  readonly command: string
  readonly cwd: string
  /** Where its output is written, as results name paths. */
  readonly outputPath: string
  readonly status: "running" | "completed" | "failed" | "killed" | "timed_out"
  readonly end?: BackgroundEnd
  /** Bytes written so far. */
  readonly totalBytes: number
  /** The sandbox mode it runs under, and why it runs unconfined when it should not. */
  readonly sandbox: ConfinedRun["sandbox"] | undefined
  /** Its end was in the answer of a read or a stop (so the model knows of it). */
  readonly endSeen: boolean
}

/** How a foreground command that was moved to the background ended: what its output file then holds, and its exit. */
export interface MovedEnd {
  /** The call's whole answer, as it would have been given had the call waited. */
  readonly text: string
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly refusals: ReadonlyArray<SandboxRefusal>
  readonly sandbox?: ConfinedRun["sandbox"] | undefined
}

/**
 * What a foreground command's call gets: the command's own result, or the background command it became (`live`: its
 * output file gets what it prints as it prints it; else the call's answer when it ends).
 */
export type ForegroundOutcome<A> = { readonly done: A } | { readonly moved: BackgroundShellView; readonly live: boolean }

/** What is new of a background command's output since the last read. */
export interface BackgroundOutput {
  readonly shell: BackgroundShellView
  /** What is shown of the new output (all of it, or its head and tail around a marker). */
  readonly shown: Excerpt
  /** New bytes since the last read, and where they start in the file. */
  readonly newBytes: number
  readonly fromByte: number
  /** Lines of the file before the new output (for reading the part left out with Read's offset). */
  readonly fromLine: number
  /** Lines of the new output. */
  readonly newLines: number
  /** With a filter: the new lines it kept and looked at. */
  readonly filtered?: { readonly kept: number; readonly of: number }
}

/** One request to start a command in the background. */
export interface BackgroundRequest extends CommandRequest {
  /** The command as results show it. */
  readonly shown: string
  /** The call that starts it (a host nests what it says of the command under that call). */
  readonly callId?: string | undefined
  /** The session (or subagent) that starts it: {@link BackgroundShellsShape.stopOwnedBy} ends it with that agent. */
  readonly owner?: string | undefined
  /** The output file is not let grow past this; the command is ended when it does. */
  readonly maxOutputBytes: number
}

/** A command started or ended. */
export interface BackgroundEvent {
  readonly type: "started" | "ended"
  readonly shell: BackgroundShellView
  /** The call that started it. */
  readonly callId?: string | undefined
  /** Where its output is, as an absolute path. */
  readonly outputFile: string
  /** It began as a foreground command and was moved to the background while it ran (a host's Ctrl+B). */
  readonly moved?: boolean
}

export interface ReadOptions {
  /** Keep only the new lines this matches (a line is looked at up to its first 2,000 characters). */
  readonly filter?: RegExp | undefined
  /** Wait this long for the command to end before reading (0: read at once). */
  readonly waitMs: number
  /** What may be shown of the new output. */
  readonly budgetBytes: number
  readonly budgetLines: number
}

export interface BackgroundShellsShape {
  readonly start: (request: BackgroundRequest) => Effect.Effect<BackgroundShellView, StartError>
  readonly read: (id: string, options: ReadOptions) => Effect.Effect<BackgroundOutput, NoSuchBackgroundShell>
  /**
   * Ends the command (its whole process tree) and waits until it is gone; a command that already ended is left as
   * it is. `by: "host"` (a program's stop, not the model's) leaves the end for the model to be told of.
   */
  readonly stop: (id: string, by?: "model" | "host") => Effect.Effect<BackgroundShellView, NoSuchBackgroundShell>
  /**
   * Ends every running command `owner` started (a subagent that ended) and waits until they are gone; their ends
   * count as seen, since no model was told of them (a subagent's ids never reach its parent). Returns them.
   */
  readonly stopOwnedBy: (owner: string) => Effect.Effect<ReadonlyArray<BackgroundShellView>>
  /**
   * Runs a foreground command (`run`, the call's whole run) so that a program can move it to the background while it
   * runs (the Agent SDK's `background_tasks`, Claude Code's Ctrl+B): the call waits for it unless
   * {@link moveToBackground} names it first; then the call answers at once with the background command it became,
   * which goes on as any other (read, stopped, ended with its owner or the session). Its output file receives what
   * the command prints from then on as it prints it (from `live`, the command's own output files; all it printed
   * before the move comes first), or, without `live`, `ended(result)` when it ends. Without a call id, or in a
   * runtime of one call, it simply runs.
   */
  readonly foreground: <A, E extends StartError, R>(
    request: BackgroundRequest,
    run: Effect.Effect<A, E, R>,
    ended: (result: A) => MovedEnd,
    live?: LiveOutput,
  ) => Effect.Effect<ForegroundOutcome<A>, E, R>
  /**
   * Moves the running foreground command of call `callId` (every one without it) to the background and returns how
   * many moved: a command that ended as the move came is not counted, its call has its own answer.
   */
  readonly moveToBackground: (callId?: string) => Effect.Effect<number>
  readonly list: () => ReadonlyArray<BackgroundShellView>
  /**
   * Calls `listener` when a command starts and when it ends (however: exit, timeout, stop, the cap, the session's
   * end); returns what stops the calls.
   */
  readonly subscribe: (listener: (event: BackgroundEvent) => void) => () => void
  /** The last `bytes` of a command's output as text, without moving where the next read starts (a host's look at it). */
  readonly tail: (id: string, bytes: number) => Effect.Effect<{ readonly text: string; readonly totalBytes: number; readonly truncated: boolean }, NoSuchBackgroundShell>
}
