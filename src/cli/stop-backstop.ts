import { writeSync } from "node:fs"
import { killDescendantsNow } from "../process/descendants.ts"
import { killAllManagedNow } from "../process/managed-registry.ts"

/**
 * The limit on an orderly stop. A signal that ends a command cancels its work and lets it finish: the turn's
 * processes get TERM, `tools.bash.kill_grace_ms`, KILL; servers close; the plugins' `session.end` hooks run. That
 * normally takes a few seconds, but a hook or a server that ignores the cancel would keep anvil for as long as it
 * likes, and a supervisor's own stop timeout (docker stop waits 10 s) would then SIGKILL anvil, which leaves its
 * processes and writes no result. So past this limit anvil writes what the command has not (its result), KILLs every
 * process tree and cage it started and every other process it still has running (a plugin's own, see
 * process/descendants.ts), and exits with the signal's status.
 */
const DEFAULT_STOP_WAIT_MS = 30_000

/** The limit: ANVIL_STOP_WAIT (seconds, > 0) sets it below a supervisor's stop timeout; 30 s otherwise. */
export const stopWaitMs = (env: Readonly<Record<string, string | undefined>>): number => {
  const raw = env.ANVIL_STOP_WAIT?.trim()
  const seconds = raw ? Number(raw) : NaN
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : DEFAULT_STOP_WAIT_MS
}

let timer: ReturnType<typeof setTimeout> | undefined
let end: (() => void) | undefined

const start = (ms: number) => {
  if (timer !== undefined) clearTimeout(timer)
  timer = setTimeout(() => end?.(), ms)
  // Nothing else left to run: the process ends by itself, as it would have without the limit.
  timer.unref()
}

/**
 * Starts the limit once, at the first signal that ends the command. It outlives the command's own signal watch (the
 * session's close after the turn can hang as well) and is lifted only when the CLI's `main` returned.
 */
export const armStopBackstop = (signal: string, code: number, lastWords: () => void): void => {
  if (end !== undefined) return
  const ms = stopWaitMs(process.env)
  const since = performance.now()
  end = () => {
    try {
      lastWords()
    } finally {
      try {
        writeSync(2, `anvil: ${signal}: the cancelled work had not ended after ${Math.round((performance.now() - since) / 1000)} s (the limit: ANVIL_STOP_WAIT, ${ms / 1000} s; a second signal: 3 s); every process anvil started is killed\n`)
      } catch {
        // stderr is gone
      }
      killAllManagedNow()
      killDescendantsNow()
      process.exit(code)
    }
  }
  start(ms)
}

/** A second signal: the armed limit runs out after `ms` instead; false when none is armed. */
export const hurryStopBackstop = (ms: number): boolean => {
  if (end === undefined) return false
  start(ms)
  return true
}

/** The command returned: nothing is left to wait for (and an in-process caller, a test, is not ended later). */
export const disarmStopBackstop = (): void => {
  if (timer !== undefined) clearTimeout(timer)
  timer = undefined
  end = undefined
}
