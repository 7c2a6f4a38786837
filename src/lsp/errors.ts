import { Data } from "effect"

/** A language server could not be started (missing program, exited during start-up, initialize failed). */
export class LspStartError extends Data.TaggedError("LspStartError")<{
  readonly server: string
  readonly message: string
  /** The end of what the server wrote to stderr before it went away, when it started at all. */
  readonly stderr?: string
}> {}

/** A server crashed more often than the restart limit allows; it is not started again this session. */
export class LspCrashedError extends Data.TaggedError("LspCrashedError")<{
  readonly server: string
  readonly restarts: number
  readonly message: string
  /** How often it failed, and the last failure (exit code or signal, or why its start failed). */
  readonly crashes: number
  readonly lastFailure: string
  /** The end of what it wrote to stderr before its last crash ("" when nothing). */
  readonly stderr: string
  /** The command line it was started with, to run it by hand and see its whole log. */
  readonly command: string
}> {}

/** A request got no answer in time, or the server answered with an error. */
export class LspRequestError extends Data.TaggedError("LspRequestError")<{
  readonly server: string
  readonly method: string
  readonly timedOut: boolean
  readonly message: string
  /** The server died during the request for the last time lsp.max_restarts allows: asking again will not help. */
  readonly final?: boolean
}> {}

/** A 1-based position that is not inside the file. */
export class LspPositionError extends Data.TaggedError("LspPositionError")<{
  readonly field: "line" | "character"
  readonly message: string
}> {}

export type LspError = LspStartError | LspCrashedError | LspRequestError | LspPositionError
