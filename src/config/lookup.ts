import { isRecord } from "../protocol/is-record.ts"

/**
 * The value at a dotted key (`providers.openai.base_url`), from the settings' own keys only: a key named after a
 * word the user typed (`-m constructor/x`) must not reach Object's own properties.
 */
export const lookup = (data: Readonly<Record<string, unknown>>, key: string): unknown =>
  key.split(".").reduce<unknown>((node, part) => (isRecord(node) && Object.hasOwn(node, part) ? node[part] : undefined), data)
