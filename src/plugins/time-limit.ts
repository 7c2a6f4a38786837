/**
 * A plugin's promise with a time limit: past `ms` it rejects with `message`,
 * marked so the host can tell a time-out from a failure of the plugin's own
 * ({@link isTimedOut}). The plugin's work is not stopped (it runs in anvil's
 * own thread); only the wait for it ends.
 */
export const withTimeLimit = <A>(promise: Promise<A>, ms: number, message: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(message), { timedOut: true })), ms)
  })
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer))
}

/** Whether `e` is the rejection of {@link withTimeLimit}'s limit. */
export const isTimedOut = (e: unknown): boolean => typeof e === "object" && e !== null && (e as { timedOut?: unknown }).timedOut === true
