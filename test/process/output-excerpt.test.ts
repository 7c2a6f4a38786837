import { describe, expect, test } from "bun:test"
import type { CapturedStream } from "../../src/process/output-capture.ts"
import { excerpt, lineCount, share, terminalText } from "../../src/process/output-excerpt.ts"

const enc = new TextEncoder()

/** A capture of `text` with `capacity` bytes kept at each end. */
const captured = (text: string, capacity = 1 << 20): CapturedStream => {
  const all = enc.encode(text)
  const head = all.slice(0, Math.min(capacity, all.length))
  const tail = all.slice(Math.max(0, all.length - capacity))
  let newlines = 0
  for (const b of all) if (b === 10) newlines++
  return { totalBytes: all.length, newlines, head, tail, complete: all.length <= head.length + tail.length, spilledBytes: 0 }
}

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join("\n") + "\n"

describe("excerpt", () => {
  test("output within budget is shown whole, without its final newline", () => {
    const e = excerpt(captured("a\nb\n"), 1000, 100)
    expect(e).toEqual({ text: "a\nb", truncated: false, omittedBytes: 0, omittedLines: 0, omittedFromLine: 0, omittedToLine: 0, omittedFromByte: 0, binary: false })
    expect(excerpt(captured(""), 1000, 100).text).toBe("")
  })

  test("over the byte budget: head and tail on whole lines around an exact omission marker", () => {
    const text = lines(1, 1000)
    const e = excerpt(captured(text, 4096), 200, 1000)
    expect(e.truncated).toBe(true)
    const [head, marker, tail] = [e.text.split("\n[…")[0]!, /\[… \d+ bytes \/ \d+ lines omitted …\]/.exec(e.text)![0], e.text.split("…]\n")[1]!]
    expect(head.startsWith("line 1\nline 2\n")).toBe(true)
    expect(tail.endsWith("line 999\nline 1000")).toBe(true)
    // Whole lines only, and the counts add up to the stream.
    const shown = [...head.split("\n"), ...tail.split("\n")]
    expect(shown.every((l) => /^line \d+$/.test(l))).toBe(true)
    expect(marker).toBe(`[… ${e.omittedBytes} bytes / ${e.omittedLines} lines omitted …]`)
    expect(shown.length + e.omittedLines).toBe(1000)
    expect(enc.encode(head + "\n").length + enc.encode(tail + "\n").length + e.omittedBytes).toBe(enc.encode(text).length)
    expect(e.omittedFromLine).toBe(head.split("\n").length)
    // The left-out lines, in full lines and bytes: what a reader of the saved file is pointed at.
    expect(e.omittedToLine).toBe(1000 - tail.split("\n").length)
    expect(e.omittedFromByte).toBe(enc.encode(head + "\n").length)
    expect(text.split("\n").slice(e.omittedFromLine, e.omittedToLine).length).toBe(e.omittedLines)
  })

  test("the left-out part's last line counts when the tail starts inside it or nothing follows it", () => {
    const long = "x".repeat(300)
    // Lines: 1..3 short, 4 long (its start left out, its end shown as the tail), no final newline.
    const e = excerpt(captured(`a\nb\nc\n${long}`, 4096), 100, 100)
    expect(e.omittedFromLine).toBeLessThanOrEqual(3)
    expect(e.omittedToLine).toBe(4)
    const unterminated = excerpt(captured("é".repeat(10_000), 4096), 101, 10)
    expect([unterminated.omittedFromLine, unterminated.omittedToLine]).toEqual([0, 1])
  })

  test("over the line budget: at most that many lines are shown", () => {
    const e = excerpt(captured(lines(1, 500)), 1 << 20, 20)
    expect(e.truncated).toBe(true)
    const shown = e.text.split("\n").filter((l) => !l.startsWith("[…"))
    expect(shown.length).toBe(20)
    expect(shown[0]).toBe("line 1")
    expect(shown[19]).toBe("line 500")
    expect(e.omittedLines).toBe(480)
  })

  test("a single huge line is cut at character boundaries, never inside a UTF-8 sequence", () => {
    const e = excerpt(captured("é".repeat(10_000), 4096), 101, 10)
    expect(e.truncated).toBe(true)
    expect(e.text).not.toContain("\uFFFD")
    expect(e.omittedLines).toBe(0)
  })

  test("binary output is described, not shown", () => {
    const e = excerpt(captured("PK\u0000\u0003binary"), 1000, 100)
    expect(e.binary).toBe(true)
    expect(e.text).toBe("(binary output: 10 bytes)")
    expect(e.truncated).toBe(true)
  })

  test("terminal control: colours removed, carriage returns overwrite their line", () => {
    expect(terminalText("\x1b[31mred\x1b[0m plain")).toBe("red plain")
    expect(terminalText("\x1b]0;title\x07done")).toBe("done")
    expect(terminalText("10%\r50%\r100%\nnext\r\n")).toBe("100%\nnext\n")
    expect(excerpt(captured("\x1b[1;32mok\x1b[0m\n"), 1000, 10).text).toBe("ok")
  })

  test("lineCount counts an unterminated last line", () => {
    expect(lineCount(captured("a\nb"))).toBe(2)
    expect(lineCount(captured("a\nb\n"))).toBe(2)
    expect(lineCount(captured(""))).toBe(0)
  })
})

describe("share", () => {
  test("both fit: each gets what it needs", () => expect(share(100, 30, 50)).toEqual([30, 50]))
  test("a small stream keeps all it needs, the large one gets the rest", () => {
    expect(share(100, 10, 500)).toEqual([10, 90])
    expect(share(100, 500, 10)).toEqual([90, 10])
  })
  test("both large: half each", () => expect(share(100, 500, 500)).toEqual([50, 50]))
})
