import { Effect } from "effect"

/**
 * A plugin's answer with its Promise awaited: a plain value, or an Effect for
 * the caller to run. An async function may resolve to an Effect (an `await
 * import(...)` before building one); written out as JSON instead of run, its
 * failure would read as a success.
 */
export const settled = async (value: unknown): Promise<unknown> => (Effect.isEffect(value) ? value : await value)
