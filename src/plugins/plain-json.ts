/**
 * A plugin's value as plain JSON, or why it is not one (a cycle, a BigInt): an
 * envelope is written as JSON, so such a value must stop at the plugin's call
 * instead of failing the output of the whole command later.
 */
export const asJson = (value: unknown): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string } => {
  try {
    const text = JSON.stringify(value)
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) }
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) }
  }
}
