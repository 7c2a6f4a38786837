import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { lockExclusive } from "../workspace/flock.ts"
import { processUnreaped } from "../process/process-table.ts"
import { sweepAfterDeath } from "../process/watchdog.ts"
import type { StandIn } from "./policy.ts"

/**
 * A record of the stand-ins commands' sandboxes place in the project (empty
 * files and folders under protected names such as anvil.json or .claude/, the
 * mount points bubblewrap needs). Several commands, of this anvil or of
 * another one in the same project, may run at once and share a stand-in: each
 * records what it uses, and a stand-in is taken away only by the last one
 * that named it (otherwise another command's bubblewrap would find its mount
 * point gone and not start). Placing, recording and removing happen under one
 * lock on the ledger. An anvil killed in between leaves its record; the next
 * sandbox of the project removes what that record names, when it is still an
 * empty file or folder, no running command names it, and its process is gone.
 */
export interface StandInLedger {
  /**
   * Under the ledger's lock: `build` says which stand-ins a command needs and
   * which protected paths exist already; missing ones are placed, existing
   * ones that another running command placed are shared, all are recorded.
   * The returned function (call it once the command ended) takes away those
   * no other running command still names.
   */
  readonly hold: <A extends { readonly standIns: ReadonlyArray<StandIn>; readonly readOnly: ReadonlyArray<string> }>(build: () => A) => { readonly value: A; readonly release: () => void }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
  // A killed anvil its parent has not reaped yet still answers the signal: its state says it is gone.
  return !processUnreaped(pid)
}

const removeIfEmpty = (s: StandIn): void => {
  try {
    if (s.kind === "dir") rmdirSync(s.path) // fails unless empty
    else if (statSync(s.path).size === 0) unlinkSync(s.path)
  } catch {
    // gone, or filled in since: someone's now
  }
}

/** True when placed; false when something is there already (another command's stand-in, or made meanwhile). */
const place = (s: StandIn): boolean => {
  try {
    if (s.kind === "dir") mkdirSync(s.path)
    else writeFileSync(s.path, "", { flag: "wx" })
    return true
  } catch {
    return false
  }
}

const readRecord = (file: string): ReadonlyArray<StandIn> => {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<StandIn>
  } catch {
    return [] // a record cut short: nothing of it was placed yet
  }
}

/** The records in `dir`: of running processes (other than `except`) and of dead ones. */
const records = (dir: string, except?: string): { live: Array<StandIn>; dead: Array<{ file: string; standIns: ReadonlyArray<StandIn> }> } => {
  const live: Array<StandIn> = []
  const dead: Array<{ file: string; standIns: ReadonlyArray<StandIn> }> = []
  let names: Array<string>
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"))
  } catch {
    return { live, dead }
  }
  for (const name of names) {
    const file = join(dir, name)
    if (file === except) continue
    const pid = Number(name.split("-")[0])
    if (!Number.isInteger(pid) || pid <= 0) continue
    if (pid === process.pid || alive(pid)) live.push(...readRecord(file))
    else dead.push({ file, standIns: readRecord(file) })
  }
  return { live, dead }
}

/** Takes away what records of processes that no longer run name (unless a running command names it too). */
const sweep = (dir: string): void => {
  const { live, dead } = records(dir)
  const inUse = new Set(live.map((s) => s.path))
  for (const { file, standIns } of dead) {
    for (const s of standIns) if (!inUse.has(s.path)) removeIfEmpty(s)
    try {
      unlinkSync(file)
    } catch {
      // taken by another sweep
    }
  }
}

/** Runs `f` holding the ledger's lock (without it when the lock cannot be had: as before there was one). */
const locked = <A>(dir: string, f: () => A): A => {
  let fd: number | undefined
  try {
    mkdirSync(dir, { recursive: true })
    fd = openSync(join(dir, "lock"), "a")
    lockExclusive(fd, 5_000)
  } catch {
    // no lock: go on
  }
  try {
    return f()
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Takes away what killed anvils' records in `dir` name (see {@link standInLedger}), under the ledger's lock. */
export const sweepStandIns = (dir: string): void => locked(dir, () => sweep(dir))

/** Numbers this process's records (one process may hold several ledgers of one project: one per session). */
let counter = 0

/** The ledger in `dir` (a private state folder of the project); swept once when made. */
export const standInLedger = (dir: string): StandInLedger => {
  sweepStandIns(dir)
  return {
    hold: (build) =>
      locked(dir, () => {
        const value = build()
        const others = new Map(records(dir).live.map((s) => [s.path, s]))
        const shared = [...value.readOnly, ...value.standIns.map((s) => s.path)].flatMap((p) => (others.has(p) ? [others.get(p)!] : []))
        const toPlace = value.standIns.filter((s) => !others.has(s.path))
        if (toPlace.length === 0 && shared.length === 0) return { value, release: () => {} }
        const file = join(dir, `${process.pid}-${++counter}.json`)
        // Should anvil be killed, its watchdog sweeps this ledger once the command is gone.
        sweepAfterDeath(dir)
        try {
          // Written before placing: a kill in between leaves a record of what may be there.
          writeFileSync(file, JSON.stringify([...toPlace, ...shared]))
        } catch {
          // no record: a kill now would leave the stand-ins, as before there were records
        }
        const mine = [...toPlace.filter(place), ...shared]
        let released = false
        const release = () => {
          if (released) return
          released = true
          locked(dir, () => {
            const inUse = new Set(records(dir, file).live.map((s) => s.path))
            for (const s of mine) if (!inUse.has(s.path)) removeIfEmpty(s)
            try {
              unlinkSync(file)
            } catch {
              // already gone
            }
          })
        }
        return { value, release }
      }),
  }
}
