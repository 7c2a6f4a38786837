import { mkdtempSync, readlinkSync } from "node:fs"
import { lstat, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { statOf } from "../process/process-table.ts"
import { livingSince, UNTAGGED_NAME, untaggedOwnerGone, type LivingSince } from "./untagged-run-folders.ts"

/**
 * anvil's folders in the system's temporary folder: a session's `$TMPDIR` and
 * the files laid over the sandbox's mounts. An orderly end removes them; a
 * killed anvil (kill -9, a crash, the machine's OOM killer) leaves them. So
 * each is named after the process that made it — its pid, its start time in
 * clock ticks since boot and its PID namespace (`anvil-cli-p123s456n789-Ab12Cd`)
 * — and a later anvil removes those whose process is gone. The pid alone could
 * be a new process's by now; with its start time it names one process for
 * good. A folder named from another PID namespace (a container sharing /tmp)
 * is never judged, nor one of another user or a link; a name without the tag
 * only by time (untagged-run-folders.ts).
 */

const NAME = /^anvil-.*-p(\d+)s(\d+)n(\d+)-[A-Za-z0-9]{6}$/

let ownTag: string | null | undefined

/** This process's PID namespace (the number in `pid:[4026531836]`), undefined without /proc. */
const pidNamespace = (): string | undefined => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1]
  } catch {
    return undefined
  }
}

/** `p<pid>s<start>n<namespace>`, or null where /proc cannot tell (the folders then carry no tag and are never swept). */
const tag = (): string | null => {
  if (ownTag !== undefined) return ownTag
  const start = statOf("self")?.start
  const ns = pidNamespace()
  return (ownTag = start !== undefined && Number.isFinite(start) && ns !== undefined ? `p${process.pid}s${start}n${ns}` : null)
}

/** Makes a private folder `anvil-<kind>-<tag>-XXXXXX` in the system's temporary folder (mode 0700). */
export const makeRunFolder = (kind: string): string => {
  const t = tag()
  return mkdtempSync(join(tmpdir(), t === null ? `anvil-${kind}-` : `anvil-${kind}-${t}-`))
}

/** Whether the folder named `name` belongs to a process that is gone (false when it cannot be judged). */
export const ownerGone = (name: string): boolean => {
  const m = NAME.exec(name)
  if (!m) return false
  const own = tag()
  if (own === null || m[3] !== /n(\d+)$/.exec(own)?.[1]) return false
  const pid = Number(m[1])
  if (pid === process.pid) return `p${m[1]}s${m[2]}n${m[3]}` !== own
  const s = statOf(pid)
  return s === undefined || String(s.start) !== m[2]
}

let swept: Promise<number> | undefined

/**
 * Removes, once per process, the run folders in `dir` whose owner is gone: tagged ones by their tag, untagged ones
 * (older versions) by time (untagged-run-folders.ts; `since` stands in for the boot and process times in tests);
 * resolves to how many went. Asynchronous, so that it runs beside the command that made this anvil need its own
 * folder rather than before it; failures are ignored (the next anvil tries again).
 */
export const sweepStaleRunFolders = (dir: string = tmpdir(), since?: LivingSince): Promise<number> =>
  (swept ??= (async () => {
    const uid = process.getuid?.()
    let removed = 0
    let living: LivingSince | undefined | null = since ?? null
    const names = await readdir(dir).catch(() => [] as Array<string>)
    for (const name of names) {
      const untagged = UNTAGGED_NAME.test(name)
      if (!name.startsWith("anvil-") || !(untagged || ownerGone(name))) continue
      const path = join(dir, name)
      const st = await lstat(path).catch(() => undefined)
      // Only a real folder of this user: /tmp's sticky bit keeps other users from swapping it afterwards.
      if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid)) continue
      if (untagged) {
        // Read once, and only when an untagged folder is there (it looks at every process).
        if (living === null) living = livingSince(uid, pidNamespace())
        if (living === undefined || !untaggedOwnerGone(st.ctimeMs, living)) continue
      }
      if (await rm(path, { recursive: true, force: true }).then(() => true, () => false)) removed++
    }
    return removed
  })())

/** Forgets that this process swept (tests). */
export const resetRunFolderSweep = (): void => {
  swept = undefined
}
