import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { existsSync, readFileSync, utimesSync } from "node:fs"
import { basename, join } from "node:path"
import { OutputSettings } from "../../src/output/output-settings.ts"
import { sweepSpills } from "../../src/output/retention.ts"
import { SPILL_NAME, SpillStore } from "../../src/output/spill-store.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { tempDir } from "../support/harness.ts"

const NOW = Date.UTC(2026, 0, 20, 12, 0, 0)
const DAY = 24 * 60 * 60 * 1000

const withStore = <A, E>(dir: string, body: (store: SpillStore["Service"]) => Effect.Effect<A, E>) => {
  const settings = Layer.succeed(OutputSettings, { maxLines: 2000, maxBytes: 51200, direction: "head", dir, retentionDays: 7 })
  return Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW)
      return yield* body(yield* SpillStore)
    }).pipe(
      Effect.provide(SpillStore.layer.pipe(Layer.provide(settings))),
      Effect.provide(Layer.merge(PlatformLive, TestClock.layer())),
    ),
  )
}

describe("SpillStore.openStream", () => {
  test("streams into a new file named like the other spills, never overwriting one", async () => {
    const dir = tempDir()
    const [a, b] = await withStore(dir, (store) =>
      Effect.gen(function* () {
        const a = yield* store.openStream("Bash", "stdout.txt")
        const b = yield* store.openStream("Bash", "stdout.txt")
        yield* a.write(new TextEncoder().encode("first "))
        yield* a.write(new TextEncoder().encode("second\n"))
        yield* a.close
        yield* a.close
        yield* b.close
        return [a.path, b.path] as const
      }),
    )
    expect(basename(a)).toBe("tool_20260120_120000_Bash.stdout.txt")
    expect(basename(b)).toBe("tool_20260120_120000_Bash_2.stdout.txt")
    expect(readFileSync(a, "utf8")).toBe("first second\n")
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("*\n")
    expect(SPILL_NAME.test(basename(a)) && SPILL_NAME.test(basename(b))).toBe(true)
  })

  test("streamed spills expire with the others under retention", async () => {
    const dir = tempDir()
    const path = await withStore(dir, (store) =>
      Effect.gen(function* () {
        const s = yield* store.openStream("Bash", "stderr.txt")
        yield* s.close
        return s.path
      }),
    )
    const old = (NOW - 8 * DAY) / 1000
    utimesSync(path, old, old)
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(NOW)
        yield* sweepSpills(dir, 7)
      }).pipe(Effect.provide(Layer.merge(PlatformLive, TestClock.layer()))),
    )
    expect(existsSync(path)).toBe(false)
  })
})
