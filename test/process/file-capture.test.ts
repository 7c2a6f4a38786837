import { describe, expect, test } from "bun:test"
import { closeSync, existsSync, fstatSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"
import { FileCapture } from "../../src/process/file-capture.ts"
import { COUNT_BLOCK, newlineCounter } from "../../src/process/newline-counter.ts"
import { tempDir } from "../support/harness.ts"

/** A capture over a new file that the test writes to, as a command would. */
const capture = (capacity: number, maxSpillBytes: number) => {
  const path = join(tempDir(), "stdout.txt")
  const fd = openSync(path, "wx+")
  const c = new FileCapture({ capacity, maxSpillBytes, file: { path, fd, remove: () => unlinkSync(path), close: async () => closeSync(fd) } })
  return { c, path, fd, write: (s: string | Uint8Array) => writeSync(fd, typeof s === "string" ? Buffer.from(s) : s) }
}

describe("FileCapture", () => {
  test("a short stream: counted, both ends read, the file removed on close", async () => {
    const { c, path, write } = capture(100, 1e9)
    write("one\ntwo\nthree")
    await c.finish()
    const s = c.snapshot()
    expect(s).toMatchObject({ totalBytes: 13, newlines: 2, complete: true, spilledBytes: 0 })
    expect(Buffer.from(s.head).toString()).toBe("one\ntwo\nthree")
    expect(s.spillPath).toBeUndefined()
    await c.close()
    expect(existsSync(path)).toBe(false)
  })

  test("a stream larger than both ends is kept; ensureSpilled keeps a short one", async () => {
    const big = capture(10, 1e9)
    big.write("0123456789".repeat(5) + "\n")
    await big.c.finish()
    expect(big.c.snapshot()).toMatchObject({ totalBytes: 51, newlines: 1, complete: false, spillPath: big.path, spilledBytes: 51 })
    expect(Buffer.from(big.c.snapshot().tail).toString()).toBe("123456789\n")
    await big.c.close()
    expect(readFileSync(big.path, "utf8")).toHaveLength(51)
    const small = capture(100, 1e9)
    small.write("a\nb\n")
    await small.c.finish()
    await small.c.ensureSpilled()
    await small.c.close()
    expect(readFileSync(small.path, "utf8")).toBe("a\nb\n")
  })

  test("output past max_spill_bytes: counted whole, its disk blocks freed while it runs, the file cut to the cap", async () => {
    const cap = 1 << 20
    const { c, path, fd, write } = capture(4096, cap)
    c.follow(5)
    const line = "the quick brown fox jumps over the lazy dog 0123456789\n"
    const block = Buffer.from(line.repeat(Math.floor((1 << 20) / line.length)))
    let written = 0
    for (let i = 0; i < 48; i++) written += write(block)
    await Bun.sleep(60)
    // 48 MiB written; all but the cap, the tail and the last few MiB counted since have been given back.
    expect(fstatSync(fd).blocks * 512).toBeLessThan(24 << 20)
    written += write("last line without newline")
    await c.finish()
    const s = c.snapshot()
    expect(s.totalBytes).toBe(written)
    expect(s.newlines).toBe(48 * Math.floor((1 << 20) / line.length))
    expect(Buffer.from(s.tail).toString()).toEndWith(`${line}last line without newline`)
    expect(s).toMatchObject({ spilledBytes: cap, spillProblem: `the saved output was capped at ${cap} bytes` })
    await c.close()
    expect(readFileSync(path).equals(Buffer.concat(Array(2).fill(block)).subarray(0, cap))).toBe(true)
  })
})

describe("newlineCounter", () => {
  test("counts every newline in any length, at any position of a 16-byte block", () => {
    const { buffer, count } = newlineCounter()
    for (const n of [0, 1, 15, 16, 17, 31, 32, 33, 1000, COUNT_BLOCK]) {
      let seed = n + 7
      let expected = 0
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0
        buffer[i] = seed % 5 === 0 ? 10 : seed % 251
        if (buffer[i] === 10) expected++
      }
      buffer[n] = 10 // past the end: not counted
      expect(count(n)).toBe(expected)
    }
  })
})
