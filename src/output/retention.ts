import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { OutputSettings } from "./output-settings.ts"
import { SPILL_NAME } from "./spill-store.ts"

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Deletes this store's spill files older than `retentionDays` from `dir`;
 * anything not named like a spill file is left alone. Returns how many went.
 */
export const sweepSpills = Effect.fn("sweepSpills")(function* (dir: string, retentionDays: number) {
  const fs = yield* FileSystem
  const path = yield* Path
  const now = yield* Clock.currentTimeMillis
  const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
  let removed = 0
  for (const name of names) {
    if (!SPILL_NAME.test(name)) continue
    const file = path.join(dir, name)
    const info = yield* fs.stat(file).pipe(Effect.option)
    if (info._tag === "None" || info.value.type !== "File") continue
    const mtime = info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : now
    if (now - mtime > retentionDays * DAY_MS) {
      const gone = yield* fs.remove(file).pipe(Effect.isSuccess)
      if (gone) removed++
    }
  }
  return removed
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
