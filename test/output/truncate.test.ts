import { describe, expect, test } from "bun:test"
import { cutBytes, truncateText } from "../../src/output/truncate.ts"

const lines = (n: number, width = 10) => Array.from({ length: n }, (_, i) => `line ${String(i + 1).padStart(width - 5, "0")}`).join("\n")

describe("truncateText", () => {
  test("passes text within both budgets unchanged", () => {
    const t = truncateText("a\nb\nc", { maxLines: 3, maxBytes: 100, direction: "head" })
    expect(t).toEqual({ truncated: false, text: "a\nb\nc", originalLines: 3, originalBytes: 5, keptLines: 3, keptBytes: 5, resumeAt: 3 })
  })

  test("cuts on the line budget, keeping the head", () => {
    const t = truncateText(lines(10), { maxLines: 4, maxBytes: 10_000, direction: "head" })
    expect(t.truncated).toBe(true)
    expect(t.text.split("\n")).toEqual(lines(4).split("\n"))
    expect(t.originalLines).toBe(10)
    expect(t.keptLines).toBe(4)
  })

  test("cuts on the byte budget even when the line count is small", () => {
    const text = lines(5, 100) // 5 lines of 100 bytes
    const t = truncateText(text, { maxLines: 2000, maxBytes: 250, direction: "head" })
    expect(t.truncated).toBe(true)
    expect(t.keptLines).toBe(2)
    expect(t.keptBytes).toBeLessThanOrEqual(250)
    expect(t.originalBytes).toBe(Buffer.byteLength(text))
  })

  test("tail keeps the last lines", () => {
    const t = truncateText(lines(10), { maxLines: 3, maxBytes: 10_000, direction: "tail" })
    expect(t.text.split("\n")).toEqual(lines(10).split("\n").slice(7))
  })

  test("head_tail keeps both ends with a marker of what was omitted", () => {
    const t = truncateText(lines(100), { maxLines: 10, maxBytes: 10_000, direction: "head_tail" })
    const kept = t.text.split("\n")
    expect(kept[0]).toBe("line 00001")
    expect(kept.at(-1)).toBe("line 00100")
    expect(t.text).toContain("[90 lines omitted]")
    // The marker is not a kept line; the part not shown starts after the five head lines.
    expect([t.keptLines, t.resumeAt]).toEqual([10, 5])
    const head = truncateText(lines(100), { maxLines: 10, maxBytes: 10_000, direction: "head" })
    const tail = truncateText(lines(100), { maxLines: 10, maxBytes: 10_000, direction: "tail" })
    expect([head.resumeAt, tail.resumeAt]).toEqual([10, 0])
  })

  test("a line longer than the whole byte budget after short ones is cut to the room left, not dropped", () => {
    const text = `# header\n\n${"z".repeat(5000)}\nlast`
    const head = truncateText(text, { maxLines: 2000, maxBytes: 100, direction: "head" })
    expect(head.text).toBe(`# header\n\n${"z".repeat(90)}`)
    // The cut line is where the part not shown starts.
    expect([head.keptLines, head.resumeAt, head.keptBytes]).toEqual([3, 2, 100])
    const tail = truncateText(`${"z".repeat(5000)}\nlast`, { maxLines: 2000, maxBytes: 100, direction: "tail" })
    expect(tail.text).toBe(`${"z".repeat(95)}\nlast`)
    // A line that would fit a budget of its own is still kept whole or not at all.
    expect(truncateText(lines(5, 100), { maxLines: 2000, maxBytes: 250, direction: "head" }).text).toBe(lines(2, 100))
  })

  test("a single line longer than the byte budget is cut at a character boundary", () => {
    const text = "é".repeat(100) // 200 bytes
    const t = truncateText(text, { maxLines: 10, maxBytes: 51, direction: "head" })
    expect(t.text).toBe("é".repeat(25))
    expect(cutBytes("aé", 2)).toBe("a")
    expect(cutBytes("éa", 2, true)).toBe("a")
  })
})
