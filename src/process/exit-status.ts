import { constants } from "node:os"

/** A command's end as a shell shows it. */
export interface ShellExit {
  /** What `$?` would be: the exit status, or 128 + N for a command ended by signal N. */
  readonly code: number
  /** The signal that ended the command ("SIGKILL"), else null. */
  readonly signal: string | null
}

const NAMES: ReadonlyMap<number, string> = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]))
const NUMBERS: ReadonlyMap<string, number> = new Map(Object.entries(constants.signals))

/** The highest signal number (SIGRTMAX on Linux). */
const MAX_SIGNAL = 64

/**
 * How a process's end reads in a shell. A death by signal N is exit status
 * 128 + N, as `$?` shows it, with the signal named. A process inside the
 * command sandbox is waited for by bubblewrap, which passes a death by signal
 * N on as its own exit status 128 + N (the wait status is lost there): for a
 * `contained` command such a status is read back as signal N, so that a
 * command killed reads the same confined or not. (A confined command that
 * itself exits with 129–192 therefore reads as killed.)
 */
export const shellExit = (ended: { readonly exitCode: number | null; readonly signal: string | null }, contained: boolean): ShellExit => {
  if (ended.signal !== null) {
    const n = NUMBERS.get(ended.signal) ?? Number(/\d+/.exec(ended.signal)?.[0] ?? 0)
    return { code: 128 + n, signal: NAMES.get(n) ?? ended.signal }
  }
  const code = ended.exitCode ?? 1
  const n = code - 128
  return { code, signal: contained && n >= 1 && n <= MAX_SIGNAL ? (NAMES.get(n) ?? `signal ${n}`) : null }
}
