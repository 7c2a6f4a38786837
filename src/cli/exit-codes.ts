import type { TurnResult } from "../agent/events.ts"
import { EXIT_SIGNALS, type ExitSignal } from "./signals.ts"

/**
 * The exit codes of `anvil run` (the README's "Scripting anvil" table). Zero
 * only when the turn ended with an answer and nothing the user asked for
 * failed; each kind of failure has its own code so a script can tell them
 * apart without parsing text.
 */
export const EXIT = {
  ok: 0,
  /** The model or its server failed (HTTP error, timeout, broken stream), it gave no answer, or the prompt cannot fit its context window. */
  model: 1,
  /** The command line is wrong. */
  usage: 2,
  /** The configuration is wrong or missing: no model, a broken anvil.json, no such session, a missing --root. */
  config: 3,
  /** A tool call was denied for lack of permission and the work it stood for was not done. */
  denied: 4,
  /** The verify command still failed when the turn ended. */
  verify: 5,
  /** The step limit (--max-steps, claude -p's --max-turns) was reached. */
  maxSteps: 6,
  /** The same failing call was repeated until the turn was stopped. */
  repeated: 7,
  // 8: a plugin's code kept anvil's thread busy past its time limit; the watchdog thread ended the process
  // (plugins/watchdog.ts FROZEN_EXIT_CODE), so no result is written.
  /** The session's spend reached claude -p's --max-budget-usd: apart from the step limit, as the SDK's subtypes are. */
  maxBudget: 9,
  // Interrupted by SIGINT (Ctrl-C), SIGTERM, SIGHUP: 130 / 143 / 129 (EXIT_SIGNALS, 128 + the signal's number);
  // 141 (SIGPIPE) when standard output's reader went away.
} as const

/** The exit code a turn's result stands for; a signal that interrupted it decides alone (a cancel without one counts as Ctrl-C). */
export const exitCodeOf = (result: Pick<TurnResult, "reason">, signal?: ExitSignal): number => {
  if (signal !== undefined) return EXIT_SIGNALS[signal]
  switch (result.reason) {
    case "completed":
    // A plugin's hook ended the turn on purpose (Claude Code's `continue: false`), as it may.
    case "hook_stopped":
      return EXIT.ok
    case "model_error":
    case "prompt_too_long":
    case "empty_answer":
      return EXIT.model
    case "permission_denied":
      return EXIT.denied
    case "verify_failed":
      return EXIT.verify
    case "max_steps":
      return EXIT.maxSteps
    case "max_budget":
      return EXIT.maxBudget
    case "repeated_failure":
      return EXIT.repeated
    case "cancelled":
      return EXIT_SIGNALS.SIGINT
  }
}
