import { readdirSync, readFileSync, statSync } from "node:fs"
import { statOf } from "../process/process-table.ts"

/**
 * Run folders without their owner's tag (run-folders.ts): made by anvil versions before the tag, or where /proc
 * could not tell. Nothing in the name says whose such a folder is, so one is removed only when its maker cannot be
 * alive, judged by time. Its ctime is never earlier than its making and cannot be set back by anyone (unlike mtime),
 * and its maker started before making it: so when the ctime lies before the machine's boot, or before the start of
 * every living process of this user, the maker is gone. The second needs every process in sight: only in the first
 * PID namespace (a container's /proc shows its own, while its /tmp may be shared). Only the names anvil gave them
 * count: a session folder (`anvil-cli-XXXXXX`, `anvil-<session id>-XXXXXX`) and the overlay files'
 * (`anvil-overlay-XXXXXX`); any other `anvil-…` name is not judged.
 */
export const UNTAGGED_NAME = /^anvil-(?:cli|overlay|\d{8}-\d{6}-[0-9a-f]{4})-[A-Za-z0-9]{6}$/

/** The PID namespace every Linux process starts in (PROC_PID_INIT_INO): its /proc shows every process. */
const INITIAL_PID_NAMESPACE = "4026531836"
/** Clock ticks a second, as /proc counts a process's start (USER_HZ). */
const TICKS_PER_SECOND = 100

/** When anything that can still be alive began: the boot, and the start of this user's oldest living process. */
export interface LivingSince {
  readonly bootMs: number
  /** Undefined where not every process is in sight (another PID namespace). */
  readonly oldestOwnMs?: number | undefined
}

/** Whether an untagged folder with this ctime was made by a process that no longer lives. */
export const untaggedOwnerGone = (ctimeMs: number, since: LivingSince): boolean =>
  ctimeMs < since.bootMs || (since.oldestOwnMs !== undefined && ctimeMs < since.oldestOwnMs)

/** The boot time (/proc/stat's btime, whole seconds rounded down: never later than the boot), undefined without /proc. */
const bootMs = (): number | undefined => {
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "latin1"))?.[1]
    return btime === undefined ? undefined : Number(btime) * 1000
  } catch {
    return undefined
  }
}

/** The start of the oldest living process of `uid` (by /proc's owner of each process), in ms since the epoch. */
const oldestOf = (uid: number, boot: number): number | undefined => {
  let oldest: number | undefined
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (statSync(`/proc/${name}`).uid !== uid) continue
    } catch {
      continue
    }
    const start = statOf(Number(name))?.start
    if (start !== undefined && Number.isFinite(start) && (oldest === undefined || start < oldest)) oldest = start
  }
  return oldest === undefined ? undefined : boot + (oldest * 1000) / TICKS_PER_SECOND
}

/** What {@link untaggedOwnerGone} judges by, read now; undefined where /proc cannot tell (nothing is then removed). */
export const livingSince = (uid: number | undefined, pidNamespace: string | undefined): LivingSince | undefined => {
  const boot = bootMs()
  if (boot === undefined) return undefined
  try {
    const oldestOwnMs = uid !== undefined && pidNamespace === INITIAL_PID_NAMESPACE ? oldestOf(uid, boot) : undefined
    return { bootMs: boot, oldestOwnMs }
  } catch {
    return { bootMs: boot }
  }
}
