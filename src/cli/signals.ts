import { writeSync } from "node:fs"
import { killAllManagedNow, stopAllManaged } from "../process/managed-registry.ts"
import { armStopBackstop, hurryStopBackstop } from "./stop-backstop.ts"

/**
 * The signals that end anvil, each with its conventional exit status (128 + number). SIGPIPE stands for the
 * reader of standard output going away: the output reports it (a write's EPIPE, a poll), not the signal itself,
 * which any pipe raises (a hook that exits without reading its input) and which stays ignored.
 */
export const EXIT_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGPIPE: 141 } as const
export type ExitSignal = keyof typeof EXIT_SIGNALS
const ROUTED: ReadonlyArray<ExitSignal> = ["SIGINT", "SIGTERM", "SIGHUP"]

/** What a command does with a signal (see `watchSignals`). */
type SignalHandler = (signal: ExitSignal) => void

const handlers: Array<SignalHandler> = []
let installed = false

/** With no command listening: end every managed process, then exit with the signal's status. */
const exitNow = (signal: ExitSignal) => {
  void stopAllManaged(0).finally(() => process.exit(EXIT_SIGNALS[signal]))
}

/**
 * Makes SIGINT, SIGTERM and SIGHUP go to the innermost command handler (or,
 * when none listens, end every managed process and exit 130 / 143 / 129).
 * Installed once at the start of the CLI, so that no signal ever kills anvil
 * the default way — which would skip the cleanup and leave children behind.
 */
export const installSignalRouting = (): void => {
  if (installed) return
  installed = true
  for (const signal of ROUTED) {
    process.on(signal, () => {
      const handler = handlers.at(-1)
      if (handler) handler(signal)
      else exitNow(signal)
    })
  }
}

/**
 * Standard output's reader is gone: the command watching signals is told as of a SIGPIPE (it cancels its work and
 * exits 141). Without one nothing happens: a one-tool call ends quietly with its own exit code.
 */
export const outputReaderGone = (): void => handlers.at(-1)?.("SIGPIPE")

/** The line a command writes on stderr when a signal cancels its work. */
export const cancellingLine = (signal: ExitSignal): string =>
  signal === "SIGPIPE"
    ? "\nanvil: the reader of standard output went away (SIGPIPE): cancelling; every process the work started is ended\n"
    : `\nanvil: ${signal}: cancelling (${signal === "SIGINT" ? "Ctrl-C" : "a signal"} again to stop at once)\n`

/**
 * A stray rejection or throw in background work (a server's reader, a hook's
 * timer) is reported on stderr and the command goes on; by default it would
 * end anvil on the spot and skip the cleanup of its processes. Installed by
 * the executable's entry point only (not by tests that call the CLI in process).
 */
export const installCrashGuards = (): void => {
  const report = (what: string) => (e: unknown) => {
    try {
      // Synchronously to fd 2: a Node stream would report a broken pipe as another uncaught error.
      writeSync(2, `anvil: ${what}: ${e instanceof Error ? e.message : String(e)}\n`)
    } catch {
      // stderr is gone too
    }
  }
  process.on("unhandledRejection", report("a background task failed"))
  process.on("uncaughtException", report("internal error in a background task"))
}

/** What `watchSignals` reports. */
export interface SignalWatch {
  /** The first signal received, if any. */
  readonly signal: ExitSignal | undefined
  /** The exit status for it (130 / 143 / 129), if any. */
  readonly exitCode: number | undefined
  /** Stops listening (the next outer handler, or the default, takes over). */
  readonly dispose: () => void
}

/** After a second signal, how long the command gets to write its final line before anvil exits anyway. */
const ESCALATED_EXIT_MS = 3000

/**
 * Whether a first signal ends the command, so that its stop gets a time limit (stop-backstop.ts): every signal but a
 * Ctrl-C typed in a terminal, where the person can press it again (and the chat only cancels the turn).
 */
const endsCommand = (signal: ExitSignal): boolean => signal !== "SIGINT" || process.stdin.isTTY !== true

export interface WatchOptions {
  /** Which first signals end the command (its stop then has a time limit); default {@link endsCommand}. */
  readonly ends?: (signal: ExitSignal) => boolean
}

/**
 * Listens for exit signals while a command runs.
 *
 * - first signal: `onSignal` (cancel the running work; the command finishes
 *   orderly, writes its result and returns `exitCode`); when it ends the
 *   command, the stop has a time limit, past which `lastWords` (if the command
 *   has not finished) and anvil exits as after a second signal;
 * - second signal (an impatient Ctrl-C, TERM after INT): every managed process
 *   is KILLed at once, which lets the cancelled work end quickly; if the
 *   command still has not finished after a moment, `lastWords` writes what it
 *   can and anvil exits with the first signal's status;
 * - a third: exit at once (the exit guard KILLs what is left).
 */
export const watchSignals = (
  onSignal: (signal: ExitSignal) => void,
  lastWords?: (signal: ExitSignal) => void,
  options: WatchOptions = {},
): SignalWatch => {
  let first: ExitSignal | undefined
  let count = 0
  let escalated: ReturnType<typeof setTimeout> | undefined
  let finished = false
  // Once, and only while the command has not finished (it wrote its own result then).
  const speak = (signal: ExitSignal) => {
    if (finished) return
    finished = true
    lastWords?.(signal)
  }
  const handler: SignalHandler = (signal) => {
    count++
    if (count === 1) {
      first = signal
      if ((options.ends ?? endsCommand)(signal)) armStopBackstop(signal, EXIT_SIGNALS[signal], () => speak(signal))
      onSignal(signal)
      return
    }
    const code = EXIT_SIGNALS[first ?? signal]
    if (count === 2) {
      void stopAllManaged(0)
      // A stop with a limit keeps it past the command's end (a hang in the session's close); otherwise the limit is this watch's.
      if (hurryStopBackstop(ESCALATED_EXIT_MS)) return
      escalated = setTimeout(() => {
        try {
          speak(first ?? signal)
        } finally {
          killAllManagedNow()
          process.exit(code)
        }
      }, ESCALATED_EXIT_MS).unref()
      return
    }
    killAllManagedNow()
    process.exit(code)
  }
  handlers.push(handler)
  return {
    get signal() {
      return first
    },
    get exitCode() {
      return first === undefined ? undefined : EXIT_SIGNALS[first]
    },
    dispose: () => {
      finished = true
      if (escalated) clearTimeout(escalated)
      const i = handlers.lastIndexOf(handler)
      if (i >= 0) handlers.splice(i, 1)
    },
  }
}
