import { Chalk, type ChalkInstance } from "chalk"

/** Whether to colour a stream: only a TTY, never with NO_COLOR (any value), FORCE_COLOR forces it. */
export const colorEnabled = (stream: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean => {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true
  return stream.isTTY === true && env.TERM !== "dumb"
}

/** A chalk instance for one stream (level 0 = plain text). */
export const makeStyle = (enabled: boolean): ChalkInstance => new Chalk({ level: enabled ? 1 : 0 })

export type Style = ChalkInstance
