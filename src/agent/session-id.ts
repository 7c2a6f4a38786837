import { shownValue } from "../protocol/shown-value.ts"

const pad = (n: number, w = 2) => String(n).padStart(w, "0")

/** A sortable session id: `YYYYMMDD-HHMMSS-xxxx` (UTC). Apart from the session files, for the results of runs that never opened one. */
export const newSessionId = (ms: number, random: () => number = Math.random): string => {
  const d = new Date(ms)
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
  const suffix = Math.floor(random() * 0xffff)
    .toString(16)
    .padStart(4, "0")
  return `${stamp}-${suffix}`
}

/** A session's id: its file's name in .anvil/sessions, so no folder, no dot first and a bounded length. */
const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

export const isSessionId = (id: string): boolean => VALID_ID.test(id)

/** What is wrong with `id` as a session id given with `flag`, or undefined when it is one. */
export const sessionIdProblem = (flag: string, id: string): string | undefined =>
  isSessionId(id)
    ? undefined
    : `${flag} ${shownValue(id)} is not a session id: ids are 1 to 128 letters, digits, '.', '_' and '-', starting with a letter or digit, as 'anvil sessions' lists them`
