import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { countLines, findTailStart, memorySource, readForward } from "../../src/workspace/line-window.ts"

const run = <A>(e: Effect.Effect<A, never>) => Effect.runSync(e)
const bytes = (s: string) => Buffer.from(s, "utf8")

/** The reference: lines as a plain split would give them (a final line feed ends the last line). */
const reference = (s: string): Array<string> => {
  if (s === "") return []
  const parts = s.split("\n")
  if (s.endsWith("\n")) parts.pop()
  return parts
}

const text = (line: { head: Uint8Array }) => Buffer.from(line.head).toString("utf8")

/** A deterministic pseudo-random text with empty lines, CRLF lines and long lines. */
const sampleText = (seed: number, lines: number, finalNewline: boolean): string => {
  let x = seed
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x / 2 ** 31
  }
  const out: Array<string> = []
  for (let i = 0; i < lines; i++) {
    const len = rnd() < 0.2 ? 0 : Math.floor(rnd() * (rnd() < 0.1 ? 60 : 12))
    out.push(`${i}:${"abcdefghij".repeat(7).slice(0, len)}${rnd() < 0.3 ? "\r" : ""}`)
  }
  return out.join("\n") + (finalNewline ? "\n" : "")
}

describe("readForward", () => {
  const cases = [
    ["", 0],
    ["\n", 1],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\n\n", 2],
    ["a\r\nb\r\n", 2],
  ] as const
  test.each(cases)("counts the lines of %j as %d", (s, n) => {
    expect(run(countLines(memorySource(bytes(s)), 0, 1))).toBe(n)
    expect(run(countLines(memorySource(bytes(s)), 0))).toBe(n)
  })

  test("the breaks counted by kind agree with a plain count, windowed or counting, at every block size", () => {
    for (const finalNewline of [true, false]) {
      const s = sampleText(11, 40, finalNewline)
      const crlf = s.split("\r\n").length - 1
      const lf = s.split("\n").length - 1 - crlf
      for (const blockSize of [1, 2, 3, 7, 64, 1 << 20]) {
        for (const limit of [0, 5, 1000]) {
          const r = run(readForward(memorySource(bytes(s)), { start: 0, skip: 3, limit, maxLineBytes: 8, countAll: true, blockSize }))
          expect(r.breaks).toEqual({ crlf, lf })
        }
      }
    }
    const open = run(readForward(memorySource(bytes("a\nb\nc\n")), { start: 0, skip: 0, limit: 1, maxLineBytes: 8, countAll: false }))
    expect(open.breaks).toBeUndefined()
  })

  test("windows agree with a plain split at every block size (block boundaries inside lines and CRLFs)", () => {
    for (const finalNewline of [true, false]) {
      const s = sampleText(7, 40, finalNewline)
      const expected = reference(s)
      for (const blockSize of [1, 2, 3, 5, 16, 1 << 20]) {
        for (const [skip, limit] of [
          [0, 5],
          [3, 10],
          [35, 10],
          [39, 1],
          [0, 100],
        ] as const) {
          const r = run(readForward(memorySource(bytes(s)), { start: 0, skip, limit, maxLineBytes: 1000, countAll: true, blockSize }))
          const want = expected.slice(skip, skip + limit)
          expect(r.lines.map((l) => text(l) + (l.crlf ? "\r" : ""))).toEqual(want)
          expect(r.lines.map((l) => l.length)).toEqual(want.map((w) => Buffer.byteLength(w.replace(/\r$/, ""))))
          expect(r.total).toBe(expected.length)
        }
      }
    }
  })

  test("without countAll it stops after the window and leaves the total unknown", () => {
    const s = sampleText(3, 1000, true)
    let reads = 0
    const src = memorySource(bytes(s))
    const counting = { size: src.size, readAt: (p: number, b: Buffer) => ((reads += 1), src.readAt(p, b)) }
    const r = run(readForward(counting, { start: 0, skip: 2, limit: 3, maxLineBytes: 1000, countAll: false, blockSize: 64 }))
    expect(r.lines.map(text)).toEqual(reference(s).slice(2, 5).map((l) => l.replace(/\r$/, "")))
    expect(r.total).toBeUndefined()
    expect(r.stoppedBy).toBe("limit")
    expect(reads).toBeLessThan(5)
    // `end` is the byte just after the window: reading on from there continues with the next line.
    const next = run(readForward(src, { start: r.end, skip: 0, limit: 1, maxLineBytes: 1000, countAll: false }))
    expect(text(next.lines[0]!)).toBe(reference(s)[5]!.replace(/\r$/, ""))
  })

  test("a long line keeps only its first bytes but reports its whole length", () => {
    const s = `short\n${"x".repeat(10_000)}\nafter\n`
    const r = run(readForward(memorySource(bytes(s)), { start: 0, skip: 0, limit: 10, maxLineBytes: 100, countAll: true, blockSize: 64 }))
    expect(r.lines.map((l) => l.head.length)).toEqual([5, 100, 5])
    expect(r.lines[1]!.length).toBe(10_000)
    expect(text(r.lines[2]!)).toBe("after")
  })

  test("the byte budget ends the window before the line that would exceed it (the first line always fits)", () => {
    const s = "aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\n"
    const r = run(readForward(memorySource(bytes(s)), { start: 0, skip: 0, limit: 10, maxLineBytes: 100, maxWindowBytes: 25, countAll: true }))
    expect(r.lines.map(text)).toEqual(["aaaaaaaaaa", "bbbbbbbbbb"])
    expect(r.stoppedBy).toBe("bytes")
    expect(r.end).toBe(22)
    expect(r.total).toBe(3)
    const one = run(readForward(memorySource(bytes(s)), { start: 0, skip: 0, limit: 10, maxLineBytes: 100, maxWindowBytes: 1, countAll: false }))
    expect(one.lines.map(text)).toEqual(["aaaaaaaaaa"])
  })
})

describe("findTailStart", () => {
  test("finds where the last N lines begin, at every block size", () => {
    for (const finalNewline of [true, false]) {
      const s = sampleText(11, 30, finalNewline)
      const expected = reference(s)
      for (const blockSize of [1, 2, 7, 1 << 20]) {
        for (const n of [1, 2, 10, 30, 31, 100]) {
          const src = memorySource(bytes(s))
          const t = run(findTailStart(src, 0, n, blockSize))
          const window = run(readForward(src, { start: t.position, skip: 0, limit: n, maxLineBytes: 1000, countAll: true }))
          expect(window.lines.map((l) => text(l) + (l.crlf ? "\r" : ""))).toEqual(expected.slice(-n))
          expect(t.found).toBe(Math.min(n, expected.length))
          expect(t.reachedStart).toBe(n >= expected.length)
        }
      }
    }
  })

  test("edge cases: empty, a lone line feed, a start offset (after a BOM)", () => {
    expect(run(findTailStart(memorySource(bytes("")), 0, 5))).toEqual({ position: 0, found: 0, reachedStart: true })
    expect(run(findTailStart(memorySource(bytes("\n")), 0, 5))).toEqual({ position: 0, found: 1, reachedStart: true })
    expect(run(findTailStart(memorySource(bytes("\uFEFFa\nb\n")), 3, 1))).toEqual({ position: 5, found: 1, reachedStart: false })
    expect(run(findTailStart(memorySource(bytes("\uFEFFa\nb\n")), 3, 9))).toEqual({ position: 3, found: 2, reachedStart: true })
  })

  test("reads only the blocks at the end", () => {
    const s = "line\n".repeat(100_000)
    const src = memorySource(bytes(s))
    let bytesRead = 0
    const counting = { size: src.size, readAt: (p: number, b: Buffer) => ((bytesRead += b.length), src.readAt(p, b)) }
    const t = run(findTailStart(counting, 0, 50, 4096))
    expect(t.position).toBe(s.length - 250)
    expect(bytesRead).toBeLessThanOrEqual(4096 + 1)
  })
})
