import { watchPluginCall, type PluginWatch } from "./watchdog.ts"

/**
 * A plugin's work with a time limit: `start` begins it; past `ms` the wait
 * rejects with `message`, marked so the host can tell a time-out from a
 * failure of the plugin's own ({@link isTimedOut}). The plugin's work is not
 * stopped (it runs in anvil's own thread); only the wait for it ends. With
 * `watch`, the watchdog ends anvil if the work keeps the thread busy past the
 * limit (watchdog.ts): no timer can fire then.
 */
export const withTimeLimit = <A>(start: () => Promise<A>, ms: number, message: string, watch?: Omit<PluginWatch, "limitMs">): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(message), { timedOut: true })), ms)
  })
  let work: Promise<A>
  let stop = () => {}
  try {
    if (watch) ({ value: work, stop } = watchPluginCall({ ...watch, limitMs: ms }, start))
    else work = start()
  } catch (e) {
    work = Promise.reject(e)
  }
  return Promise.race([work, limit]).finally(() => {
    clearTimeout(timer)
    stop()
  })
}

/** Whether `e` is the rejection of {@link withTimeLimit}'s limit. */
export const isTimedOut = (e: unknown): boolean => typeof e === "object" && e !== null && (e as { timedOut?: unknown }).timedOut === true
