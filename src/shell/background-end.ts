import type { BackgroundEnd, BackgroundShellView } from "./background-types.ts"

/** How a command ended, in words: "exited with code 2", "was ended by its timeout", "was stopped", … */
export const describeEnd = (end: BackgroundEnd): string =>
  end.error !== undefined
    ? `could not run (${end.error._tag})`
    : end.capped
      ? "was stopped: its output passed the tools.bash.max_spill_bytes cap"
      : end.timedOut
        ? "was ended by its timeout"
        : end.stopped
          ? "was stopped"
          : end.exitCode !== null
            ? `exited with code ${end.exitCode}${end.signal !== null ? ` (killed by ${end.signal})` : ""}`
            : end.signal !== null
              ? `was ended by signal ${end.signal}`
              : "ended"

/** A command's status as results name it. */
export const statusOf = (end: BackgroundEnd | undefined): BackgroundShellView["status"] =>
  end === undefined ? "running" : end.timedOut ? "timed_out" : end.stopped || end.capped ? "killed" : end.error !== undefined || end.exitCode !== 0 ? "failed" : "completed"
