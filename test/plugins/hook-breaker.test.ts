import { describe, expect, test } from "bun:test"
import { BREAKER_COOL_DOWN_MS, hookBreaker } from "../../src/plugins/hook-breaker.ts"

describe("hook breaker", () => {
  test("opens after two time-outs in a row, tries again after the cool-down, closes on an answer in time", () => {
    let now = 0
    const b = hookBreaker<string>(() => now)
    expect(b.record("h", true)).toBe(false)
    // An answer in time resets the count: time-outs must come in a row.
    expect(b.record("h", false)).toBe(false)
    expect(b.record("h", true)).toBe(false)
    expect(b.record("h", true)).toBe(true)
    expect(b.allows("h")).toBe(false)
    expect(b.allows("other")).toBe(true)
    now += BREAKER_COOL_DOWN_MS - 1
    expect(b.allows("h")).toBe(false)
    now += 1
    expect(b.allows("h")).toBe(true)
    // The try timed out again: open for another cool-down, said again.
    expect(b.record("h", true)).toBe(true)
    expect(b.allows("h")).toBe(false)
    now += BREAKER_COOL_DOWN_MS
    expect(b.record("h", false)).toBe(false)
    expect(b.allows("h")).toBe(true)
  })

  test("after the cool-down one call tries the hook: the others skip it until that try ends", () => {
    let now = 0
    const b = hookBreaker<string>(() => now)
    b.record("h", true)
    b.record("h", true)
    now += BREAKER_COOL_DOWN_MS
    expect(b.allows("h")).toBe(true)
    // Concurrent calls while the try runs: skipped, as the open breaker skips them.
    expect(b.allows("h")).toBe(false)
    expect(b.allows("h")).toBe(false)
    // The try timed out: open again; after the next cool-down, again one try.
    expect(b.record("h", true)).toBe(true)
    expect(b.allows("h")).toBe(false)
    now += BREAKER_COOL_DOWN_MS
    expect(b.allows("h")).toBe(true)
    expect(b.allows("h")).toBe(false)
    // It answered in time: closed, every call runs it.
    expect(b.record("h", false)).toBe(false)
    expect(b.allows("h")).toBe(true)
    expect(b.allows("h")).toBe(true)
  })
})
