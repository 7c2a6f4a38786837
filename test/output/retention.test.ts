import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { OutputSettings } from "../../src/output/output-settings.ts"
import { RetentionLive, sweepSpills } from "../../src/output/retention.ts"
import { RetentionOnSpill } from "../../src/output/retention-on-spill.ts"
import { SpillStore, spillStamp } from "../../src/output/spill-store.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { tempDir } from "../support/harness.ts"

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.UTC(2026, 0, 20, 12, 0, 0)

const file = (dir: string, name: string, ageMs: number) => {
  const p = join(dir, name)
  writeFileSync(p, "{}")
  const t = (NOW - ageMs) / 1000
  utimesSync(p, t, t)
  return p
}

describe("retention of spilled output", () => {
  test("a sweep deletes only this store's spill files older than the retention period", async () => {
    const dir = tempDir()
    const old = file(dir, "tool_20260101_000000_Read.json", 8 * DAY)
    const fresh = file(dir, "tool_20260119_000000_Read.json", 6 * DAY)
    const foreign = file(dir, "notes.json", 30 * DAY)
    const ignore = file(dir, ".gitignore", 30 * DAY)
    const removed = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW)
        return yield* sweepSpills(dir, 7)
      }).pipe(Effect.provide(Layer.merge(PlatformLive, TestClock.layer()))),
    )
    expect(removed).toBe(1)
    expect(existsSync(old)).toBe(false)
    expect([fresh, foreign, ignore].map(existsSync)).toEqual([true, true, true])
  })

  test("the scoped layer sweeps at start and again every hour while it lives", async () => {
    const dir = tempDir()
    mkdirSync(dir, { recursive: true })
    const old = file(dir, "tool_20260101_000000_Grep.json", 10 * DAY)
    const ageing = file(dir, "tool_20260113_120000_Grep.json", 7 * DAY - 30 * 60 * 1000) // expires in 30 min
    const settings = Layer.succeed(OutputSettings, { maxLines: 2000, maxBytes: 51200, direction: "head", dir, retentionDays: 7 })
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW)
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Layer.build(RetentionLive.pipe(Layer.provide(settings)))
            expect(existsSync(old)).toBe(false)
            expect(existsSync(ageing)).toBe(true)
            yield* TestClock.adjust("61 minutes")
            yield* Effect.yieldNow
            // The periodic sweep runs on the test clock; give its file I/O a moment of real time.
            yield* TestClock.withLive(Effect.sleep("50 millis"))
            expect(existsSync(ageing)).toBe(false)
          }),
        )
      }).pipe(Effect.provide(Layer.merge(PlatformLive, TestClock.layer()))),
    )
  })

  test("on-spill retention (anvil tool) sweeps nothing at start, then once after the first spill", async () => {
    const dir = tempDir()
    mkdirSync(dir, { recursive: true })
    const old = file(dir, "tool_20260101_000000_Grep.json", 10 * DAY)
    const settings = Layer.succeed(OutputSettings, { maxLines: 2000, maxBytes: 51200, direction: "head", dir, retentionDays: 7 })
    const store = RetentionOnSpill.pipe(Layer.provide(Layer.merge(SpillStore.layer.pipe(Layer.provide(settings)), settings)))
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW)
        const spills = yield* SpillStore
        expect(existsSync(old)).toBe(true)
        const { json } = yield* spills.spill("Read", {})
        expect(existsSync(json)).toBe(true)
        expect(existsSync(old)).toBe(false)
      }).pipe(Effect.provide(store), Effect.provide(Layer.merge(PlatformLive, TestClock.layer()))),
    )
  })

  test("spill names carry a UTC timestamp", () => {
    expect(spillStamp(Date.UTC(2026, 0, 13, 15, 30, 45))).toBe("20260113_153045")
  })
})
