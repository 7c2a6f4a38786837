import { Effect } from "effect"
import type { AgentEvent } from "./events.ts"
import type { LoopOptions } from "./loop-options.ts"

/** How one auto-verification went: cancelled with the turn, declined by the person, or run with its report for the model. */
export type VerifyStep = { readonly kind: "cancelled" } | { readonly kind: "declined" } | { readonly kind: "ran"; readonly passed: boolean; readonly report: string }

/** Runs the verify command after the turn changed `changed` (stopped with the turn when the user cancels). */
export const runVerify = (
  verify: NonNullable<LoopOptions["verify"]>,
  changed: ReadonlyArray<string>,
  cancelSignal: Effect.Effect<void> | undefined,
  emit: (event: AgentEvent) => Effect.Effect<void>,
): Effect.Effect<VerifyStep> =>
  Effect.gen(function* () {
    const run = verify.run
    const exit = yield* (cancelSignal ? Effect.raceFirst(run, Effect.andThen(cancelSignal, Effect.interrupt)) : run).pipe(Effect.exit)
    if (exit._tag === "Failure") return { kind: "cancelled" } as const
    const result = exit.value
    if (result.skipped) return { kind: "declined" } as const
    const passed = result.exitCode === 0 && !result.timedOut
    yield* emit({ type: "verify", command: verify.command, passed, exit_code: result.exitCode, output: result.output })
    const report = passed
      ? `Auto-verification passed: \`${verify.command}\` exited 0 after the changes to ${changed.join(", ")}.`
      : `Auto-verification failed: \`${verify.command}\` ${result.timedOut ? "timed out" : `exited ${result.exitCode}`} after the changes to ${changed.join(", ")}.\n` +
        `Output (end):\n\`\`\`\n${result.output}\n\`\`\`\nFix the problem, or explain why it is not caused by your change.`
    return { kind: "ran", passed, report } as const
  })
