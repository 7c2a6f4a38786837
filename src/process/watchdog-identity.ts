import { statOf } from "./process-table.ts"

/**
 * Which process is anvil's process watchdog (watchdog.ts): its pid and its start time in clock ticks, in memory every
 * thread of anvil shares (the plugin watchdog's thread reads it while anvil's own may be stuck). A forced exit
 * (descendants.ts) spares that one process and what runs under it, and KILLs every other child: recognised by its
 * arguments instead, any child started with the same words (a plugin's `spawn("sh", ["-c", "…", "anvil-watchdog"])`)
 * would outlive anvil. A pid is reused only once its process was reaped, and the start time tells a reused one apart.
 * Zero while there is no watchdog.
 */
export const WATCHDOG_IDENTITY = new SharedArrayBuffer(16)

const identity = new Float64Array(WATCHDOG_IDENTITY)

/** Records the watchdog just started (its start time read now, while it cannot have ended and been reaped yet). */
export const noteWatchdog = (pid: number): void => {
  identity[1] = statOf(pid)?.start ?? -1
  identity[0] = pid
}

/** The watchdog is gone (killed on an orderly exit): no process is spared any more. */
export const forgetWatchdog = (): void => {
  identity[0] = 0
  identity[1] = 0
}
