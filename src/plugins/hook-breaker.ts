/**
 * A circuit breaker per hook, for one session: a hook that timed out
 * {@link BREAKER_THRESHOLD} times in a row is not waited for again during the
 * next {@link BREAKER_COOL_DOWN_MS}; then it gets one try, which closes the
 * breaker when it answers in time and opens it again when it does not. The
 * try is one call: calls made while it runs skip the hook as the open
 * breaker did (a burst of calls after the cool-down would otherwise each wait
 * for a hook that likely still hangs). Without
 * it, a hook that hangs costs its whole time limit to every call.
 *
 * An open breaker skips the hook, which is exactly what a time-out does (a
 * hook that times out is reported and skipped): no call is decided otherwise
 * than by waiting for the hook would decide it, only sooner. Each hook has its
 * own breaker, so a project's hook that hangs never opens the breaker of a
 * user's hook, and neither the threshold nor the cool-down is configurable.
 */

/** Time-outs in a row that open a hook's breaker. */
export const BREAKER_THRESHOLD = 2
/** How long an open breaker skips its hook before trying it again. */
export const BREAKER_COOL_DOWN_MS = 60_000

interface State {
  timeouts: number
  openedAt?: number
  /** The one try after the cool-down is running. */
  trying?: boolean
}

export interface HookBreaker<K> {
  /** Whether the hook is to be called now: closed, or open for the whole cool-down and no try running (this call is the try). */
  readonly allows: (key: K) => boolean
  /** What a call of the hook came to; true when this time-out opened the breaker (say so once). */
  readonly record: (key: K, timedOut: boolean) => boolean
}

export const hookBreaker = <K>(now: () => number = Date.now): HookBreaker<K> => {
  const states = new Map<K, State>()
  return {
    allows: (key) => {
      const state = states.get(key)
      if (state?.openedAt === undefined) return true
      if (state.trying || now() - state.openedAt < BREAKER_COOL_DOWN_MS) return false
      state.trying = true
      return true
    },
    record: (key, timedOut) => {
      if (!timedOut) {
        states.delete(key)
        return false
      }
      const state = states.get(key) ?? { timeouts: 0 }
      states.set(key, state)
      state.trying = false
      state.timeouts++
      if (state.timeouts < BREAKER_THRESHOLD) return false
      // A try after the cool-down that timed out again opens it for another cool-down, said once more.
      state.openedAt = now()
      return true
    },
  }
}

/** The report of a breaker that just opened. */
export const breakerOpened = (): string =>
  `timed out ${BREAKER_THRESHOLD} times in a row: it is skipped without waiting for the next ${BREAKER_COOL_DOWN_MS / 1000} s of this session, as a time-out skips it, then tried again`
