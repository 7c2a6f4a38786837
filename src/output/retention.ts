import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { readdirSync, statSync, unlinkSync } from "node:fs"
import { join } from "node:path"
import { OutputSettings } from "./output-settings.ts"
import { SPILL_NAME } from "./spill-store.ts"

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Deletes this store's spill files older than `retentionDays` from `dir`;
 * anything not named like a spill file is left alone. Returns how many went.
 * Synchronous file calls: a week of spills can be thousands of files, and one
 * asynchronous stat each made a sweep of 2,000 take ~50 ms instead of ~5.
 */
export const sweepSpills = Effect.fn("sweepSpills")(function* (dir: string, retentionDays: number) {
  const now = yield* Clock.currentTimeMillis
  return yield* Effect.sync(() => {
    let names: Array<string>
    try {
      names = readdirSync(dir)
    } catch {
      return 0
    }
    let removed = 0
    for (const name of names) {
      if (!SPILL_NAME.test(name)) continue
      const file = join(dir, name)
      try {
        const info = statSync(file)
        if (!info.isFile() || now - info.mtimeMs <= retentionDays * DAY_MS) continue
        unlinkSync(file)
        removed++
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
    return removed
  })
})

/** How often a long-running session sweeps again. */
export const SWEEP_EVERY = Duration.hours(1)

/**
 * Retention for a session: one sweep when it starts, then a
 * sweep every hour for as long as the scope lives.
 */
export const startRetention = Effect.gen(function* () {
  const { dir, retentionDays } = yield* OutputSettings
  yield* sweepSpills(dir, retentionDays)
  yield* sweepSpills(dir, retentionDays).pipe(
    Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
    Effect.delay(SWEEP_EVERY),
    Effect.forkScoped,
  )
})

/** {@link startRetention} as a layer. */
export const RetentionLive = Layer.effectDiscard(startRetention)
