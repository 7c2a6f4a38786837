import { describe, expect, test } from "bun:test"
import { OutputCapture, type SpillTarget } from "../../src/process/output-capture.ts"

/** A spill target in memory that records what reached it (and can fail or be slow). */
const memorySpill = (options: { failOpen?: boolean; failWriteAfter?: number; slowMs?: number; sync?: boolean } = {}) => {
  const parts: Array<Uint8Array> = []
  /** The arrays handed to writeSync, as given (to see that chunks are not copied on the way). */
  const given: Array<Uint8Array> = []
  let writes = 0
  let inFlight = 0
  let maxInFlight = 0
  let closed = false
  const target: SpillTarget = {
    open: async () =>
      options.failOpen
        ? { error: "read-only file system" }
        : {
            path: "/spill/out.txt",
            write: async (bytes) => {
              if (options.failWriteAfter !== undefined && writes >= options.failWriteAfter) throw new Error("no space left on device")
              writes++
              inFlight++
              maxInFlight = Math.max(maxInFlight, inFlight)
              // The capture may reuse its buffer after the promise settles: copy now.
              parts.push(bytes.slice())
              if (options.slowMs) await new Promise((r) => setTimeout(r, options.slowMs))
              inFlight--
            },
            ...(options.sync
              ? {
                  writeSync: (bytes: Uint8Array) => {
                    if (options.failWriteAfter !== undefined && writes >= options.failWriteAfter) throw new Error("no space left on device")
                    writes++
                    given.push(bytes)
                    parts.push(bytes.slice())
                  },
                }
              : {}),
            close: async () => {
              closed = true
            },
          },
  }
  const bytes = () => Buffer.concat(parts)
  return { target, bytes, given, stats: () => ({ writes, maxInFlight, closed }) }
}

/** Feeds chunks the way the process runner does: waiting whenever write returns a promise. */
const feed = async (capture: OutputCapture, chunks: Iterable<Uint8Array>) => {
  for (const chunk of chunks) {
    const wait = capture.write(chunk)
    if (wait) await wait
  }
  await capture.finish()
}

const enc = new TextEncoder()
const numbered = (from: number, to: number) => {
  let s = ""
  for (let i = from; i <= to; i++) s += `line ${i}\n`
  return enc.encode(s)
}
function* chunksOf(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

describe("OutputCapture", () => {
  test("a short stream stays in memory, complete, and never opens a spill file", async () => {
    const spill = memorySpill()
    const capture = new OutputCapture({ capacity: 1000, maxSpillBytes: 1e9, spill: spill.target })
    await feed(capture, [enc.encode("hello\n"), enc.encode("world")])
    const s = capture.snapshot()
    expect(s.totalBytes).toBe(11)
    expect(s.newlines).toBe(1)
    expect(s.complete).toBe(true)
    expect(new TextDecoder().decode(s.head)).toBe("hello\nworld")
    expect(s.spillPath).toBeUndefined()
    expect(spill.stats().writes).toBe(0)
  })

  test("a large stream keeps only its two ends in memory and spills every byte, in order", async () => {
    const spill = memorySpill()
    const capture = new OutputCapture({ capacity: 4096, maxSpillBytes: 1e9, spill: spill.target })
    const all = numbered(1, 200_000) // about 2.3 MB
    await feed(capture, chunksOf(all, 65_536))
    const s = capture.snapshot()
    expect(s.totalBytes).toBe(all.length)
    expect(s.newlines).toBe(200_000)
    expect(s.complete).toBe(false)
    expect(s.head.length).toBe(4096)
    expect(s.tail.length).toBe(4096)
    expect(Buffer.from(s.head).equals(Buffer.from(all.subarray(0, 4096)))).toBe(true)
    expect(Buffer.from(s.tail).equals(Buffer.from(all.subarray(all.length - 4096)))).toBe(true)
    expect(s.spillPath).toBe("/spill/out.txt")
    expect(s.spilledBytes).toBe(all.length)
    expect(spill.bytes().equals(Buffer.from(all))).toBe(true)
    expect(spill.stats().closed).toBe(true)
  })

  test("memory is bounded: with a slow disk the producer is paused instead of chunks piling up", async () => {
    const spill = memorySpill({ slowMs: 5 })
    const capture = new OutputCapture({ capacity: 1024, maxSpillBytes: 1e9, spill: spill.target })
    const chunk = new Uint8Array(256 * 1024).fill(120)
    let paused = 0
    for (let i = 0; i < 64; i++) {
      // 16 MiB in all
      const wait = capture.write(chunk)
      if (wait) {
        paused++
        await wait
      }
    }
    await capture.finish()
    // Two 1 MiB buffers take turns: at most one write is ever in flight, and the producer waited.
    expect(spill.stats().maxInFlight).toBe(1)
    expect(paused).toBeGreaterThan(0)
    expect(capture.snapshot().spilledBytes).toBe(16 * 1024 * 1024)
    expect(spill.bytes().length).toBe(16 * 1024 * 1024)
  })

  test("ensureSpilled writes a stream that fit in memory, for when it is shown cut", async () => {
    const spill = memorySpill()
    const capture = new OutputCapture({ capacity: 1000, maxSpillBytes: 1e9, spill: spill.target })
    const all = numbered(1, 100)
    await feed(capture, [all])
    expect(capture.snapshot().spillPath).toBeUndefined()
    await capture.ensureSpilled()
    expect(capture.snapshot().spillPath).toBe("/spill/out.txt")
    expect(spill.bytes().equals(Buffer.from(all))).toBe(true)
  })

  test("the spill file stops at max_spill_bytes and says so; counting goes on", async () => {
    const spill = memorySpill()
    const capture = new OutputCapture({ capacity: 100, maxSpillBytes: 1_500_000, spill: spill.target })
    const all = numbered(1, 250_000)
    await feed(capture, chunksOf(all, 50_000))
    const s = capture.snapshot()
    expect(s.spilledBytes).toBe(1_500_000)
    expect(spill.bytes().equals(Buffer.from(all.subarray(0, 1_500_000)))).toBe(true)
    expect(s.spillProblem).toContain("capped at 1500000 bytes")
    expect(s.totalBytes).toBe(all.length)
    expect(s.newlines).toBe(250_000)
  })

  test("a spill file that cannot be opened or written is reported, never thrown", async () => {
    const noOpen = new OutputCapture({ capacity: 100, maxSpillBytes: 1e9, spill: memorySpill({ failOpen: true }).target })
    await feed(noOpen, chunksOf(numbered(1, 1000), 500))
    expect(noOpen.snapshot().spillPath).toBeUndefined()
    expect(noOpen.snapshot().spillProblem).toContain("read-only file system")

    const full = new OutputCapture({ capacity: 100, maxSpillBytes: 1e9, spill: memorySpill({ failWriteAfter: 1 }).target })
    await feed(full, chunksOf(numbered(1, 300_000), 65_536))
    expect(full.snapshot().spillProblem).toContain("no space left on device")
    expect(full.snapshot().newlines).toBe(300_000)
  })
})

describe("OutputCapture with a synchronous spill file (the bash tool's)", () => {
  test("each chunk goes to the file as it arrives, uncopied, every byte in order; memory keeps only the two ends", async () => {
    const spill = memorySpill({ sync: true })
    const capture = new OutputCapture({ capacity: 4096, maxSpillBytes: 1e9, spill: spill.target })
    const all = numbered(1, 200_000)
    const chunks = [...chunksOf(all, 65_536)]
    let paused = 0
    for (const chunk of chunks) {
      const wait = capture.write(chunk)
      if (wait) {
        paused++
        await wait
      }
    }
    await capture.finish()
    const s = capture.snapshot()
    expect(s.totalBytes).toBe(all.length)
    expect(s.newlines).toBe(200_000)
    expect(s.spilledBytes).toBe(all.length)
    expect(spill.bytes().equals(Buffer.from(all))).toBe(true)
    expect(Buffer.from(s.tail).equals(Buffer.from(all.subarray(all.length - 4096)))).toBe(true)
    // Only the opening of the file paused the producer; after it, one write per chunk, the chunk itself.
    expect(paused).toBe(1)
    expect(spill.given.slice(-10).every((b, i) => b === chunks[chunks.length - 10 + i])).toBe(true)
    expect(spill.stats().closed).toBe(true)
  })

  test("the cap, a failing disk and ensureSpilled behave as with batched writes", async () => {
    for (const sync of [false, true]) {
      const capped = memorySpill({ sync })
      const a = new OutputCapture({ capacity: 100, maxSpillBytes: 1_500_000, spill: capped.target })
      const all = numbered(1, 250_000)
      await feed(a, chunksOf(all, 50_000))
      expect(a.snapshot().spilledBytes).toBe(1_500_000)
      expect(capped.bytes().equals(Buffer.from(all.subarray(0, 1_500_000)))).toBe(true)
      expect(a.snapshot().spillProblem).toContain("capped at 1500000 bytes")

      const full = new OutputCapture({ capacity: 100, maxSpillBytes: 1e9, spill: memorySpill({ sync, failWriteAfter: 1 }).target })
      await feed(full, chunksOf(numbered(1, 300_000), 65_536))
      expect(full.snapshot().spillProblem).toContain("no space left on device")
      expect(full.snapshot().newlines).toBe(300_000)

      const small = memorySpill({ sync })
      const b = new OutputCapture({ capacity: 1000, maxSpillBytes: 1e9, spill: small.target })
      await feed(b, [numbered(1, 100)])
      await b.ensureSpilled()
      expect(small.bytes().equals(Buffer.from(numbered(1, 100)))).toBe(true)
    }
  })
})
