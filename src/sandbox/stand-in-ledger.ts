import { readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import type { StandIn } from "./policy.ts"

/**
 * A record of the stand-ins a command's sandbox places in the project (empty
 * files and folders under protected names such as anvil.json or .claude/, the
 * mount points bubblewrap needs), written before they are placed and removed
 * after they are taken away. An anvil killed in between leaves its record;
 * the next sandbox of the project removes what that record names, when it is
 * still an empty file or folder and its process is gone.
 */
export interface StandInLedger {
  /** Records `standIns` before they are placed; the returned function forgets them once they are removed. */
  readonly record: (standIns: ReadonlyArray<StandIn>) => () => void
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const removeIfEmpty = (s: StandIn): void => {
  try {
    if (s.kind === "dir") rmdirSync(s.path) // fails unless empty
    else if (statSync(s.path).size === 0) unlinkSync(s.path)
  } catch {
    // gone, or filled in since: someone's now
  }
}

/** Takes away what records of processes that no longer run name. */
const sweep = (dir: string): void => {
  let names: Array<string>
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(name.split("-")[0])
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue
    const file = join(dir, name)
    try {
      const standIns = JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<StandIn>
      for (const s of standIns) removeIfEmpty(s)
    } catch {
      // a record cut short: nothing of it was placed yet
    }
    try {
      unlinkSync(file)
    } catch {
      // taken by another sweep
    }
  }
}

/** The ledger in `dir` (a private state folder of the project); swept once when made. */
export const standInLedger = (dir: string): StandInLedger => {
  sweep(dir)
  let counter = 0
  return {
    record: (standIns) => {
      if (standIns.length === 0) return () => {}
      const file = join(dir, `${process.pid}-${++counter}.json`)
      try {
        mkdirSync(dir, { recursive: true })
        writeFileSync(file, JSON.stringify(standIns))
      } catch {
        // no record: a kill now would leave the stand-ins, as before there were records
        return () => {}
      }
      return () => {
        try {
          unlinkSync(file)
        } catch {
          // already gone
        }
      }
    },
  }
}
