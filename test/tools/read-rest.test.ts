import { describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { callTool, project, tempDir } from "../support/harness.ts"

/** A cut line's marker parts, as the model reads them. */
const marker = (content: string) => content.match(/… \[line cut: characters (\d+)-(\d+) of (\d+); the rest from column=(\d+)\]$/)

/** The text of line `n` in a read's content (number and tab removed, marker dropped). */
const lineText = (content: string) => content.replace(/^ *-?\d+\t/, "").replace(/… \[line cut: [^\]]*\]$/, "")

describe("read: a cut line states its full length and where its rest is", () => {
  // Multi-byte characters (2-, 3- and 4-byte) so that columns are characters, not bytes.
  const long = Array.from({ length: 5000 }, (_, i) => Array.from("aé€😀")[i % 4]).join("")

  test("the marker, the note, data.cut_lines and a Read hint; following the hints rebuilds the line exactly", async () => {
    const root = project({ "m.js": `short\n${long}\nend\n` })
    const e = (await callTool(root, "read", { path: "m.js" })).envelope
    expect(e.status).toBe("partial")
    const line2 = String(e.data.content).split("\n")[1]!
    expect(marker(line2)?.slice(1)).toEqual(["1", "2000", "5000", "2000"])
    expect(e.text).toContain("line 2 (5000 characters; rest: offset=1, limit=1, column=2000)")
    expect(e.text).toContain('* Read(path="m.js", offset=1, limit=1, column=2000)')
    expect(e.data.cut_lines).toEqual([{ line: 2, shown_from: 0, shown_chars: 2000, total_chars: 5000, bytes: Buffer.byteLength(long) }])
    // Follow the hints: the pieces put together are the line.
    let text = lineText(line2)
    for (let column = 2000, guard = 0; column !== undefined && guard < 10; guard++) {
      const next = (await callTool(root, "read", { path: "m.js", offset: 1, limit: 1, column }, { configOverrides: { tools: { read: { max_bytes: 4000 } } } })).envelope
      const content = String(next.data.content)
      text += lineText(content)
      const m = marker(content)
      if (m === null) break
      expect(Number(m[1])).toBe(column + 1)
      column = Number(m[4])
    }
    expect(text).toBe(long)
  })

  test("a column on a multi-line window shows each line from there; shorter lines are empty", async () => {
    const root = project({ "w.txt": `${"x".repeat(2500)}\nab\n${"y".repeat(4100)}\n` })
    const e = (await callTool(root, "read", { path: "w.txt", column: 2000 })).envelope
    const lines = String(e.data.content).split("\n")
    expect(lines[0]).toBe(`     1\t${"x".repeat(500)}`)
    expect(lines[1]).toBe("     2\t")
    expect(marker(lines[2]!)?.slice(1)).toEqual(["2001", "4000", "4100", "4000"])
    expect(e.text).toContain("Each line shown from column 2000")
    expect(e.text).toContain("1 line ends before column 2000 (shown empty).")
    expect(e.data.column).toBe(2000)
    const past = (await callTool(root, "read", { path: "w.txt", offset: 1, limit: 1, column: 2000 })).envelope
    expect(past.text).toContain("Line 2 ends before column 2000 (it has 2 characters): nothing of it is left to show.")
  })

  test("a line past the counting budget states its bytes; a tail read's cut line hints a negative offset", async () => {
    const root = project({ "big.txt": `${"z".repeat(1_500_000)}\n` })
    const e = (await callTool(root, "read", { path: "big.txt", offset: -1 }, { configOverrides: { tools: { read: { count_max_bytes: 100 } } } })).envelope
    expect(String(e.data.content)).toContain("of more (1500000 bytes); the rest from column=2000]")
    expect(e.text).toMatch(/rest: offset=(0|-1), limit=1, column=2000/)
  })
})

describe("read: line_ending reports what is known", () => {
  test("an LF file whose first line is longer than the sample is lf; no break at all is none; unscanned is unknown", async () => {
    const root = project({
      "late.txt": `${"q".repeat(100_000)}\nsecond\n`,
      "lateCrlf.txt": `${"q".repeat(100_000)}\r\nsecond\r\n`,
      "laterMixed.txt": `${"a\n".repeat(40_000)}b\r\n`,
      "flat.txt": "q".repeat(100_000),
      "tail.txt": `${"q".repeat(100_000)}\nlast`,
    })
    const ending = async (path: string, overrides?: object, offset = 0) =>
      (await callTool(root, "read", { path, limit: 1, offset }, overrides ? { configOverrides: { tools: { read: overrides } } } : {})).envelope.data.line_ending
    expect(await ending("late.txt")).toBe("lf")
    expect(await ending("lateCrlf.txt")).toBe("crlf")
    expect(await ending("laterMixed.txt")).toBe("mixed")
    expect(await ending("flat.txt")).toBe("none")
    // The lines read count too: a line read whole ends with its break.
    expect(await ending("late.txt", { count_max_bytes: 1000 })).toBe("lf")
    // A file over the counting limit is scanned only to its first break (at least the 64 KiB sample):
    // none found there and none in the lines read, nothing is claimed.
    expect(await ending("tail.txt", { count_max_bytes: 1000 }, -1)).toBe("unknown")
    expect(await ending("tail.txt", {}, -1)).toBe("lf")
  })
})

describe("read through the binary", () => {
  test("a cut line's rest by column; line_ending of a long first line", async () => {
    const root = tempDir()
    writeFileSync(join(root, "min.js"), `${"0123456789".repeat(500)}\n`)
    writeFileSync(join(root, "late.txt"), `${"q".repeat(70_000)}\nnext\n`)
    const env = { HOME: tempDir() }
    const first = JSON.parse((await runBinary(["tool", "read", '{"path":"min.js"}'], { cwd: root, env })).stdout)
    expect(first.text).toContain('* Read(path="min.js", offset=0, limit=1, column=2000)')
    expect(first.data.cut_lines[0]).toMatchObject({ line: 1, total_chars: 5000 })
    const rest = JSON.parse((await runBinary(["tool", "read", '{"path":"min.js","offset":0,"limit":1,"column":2000}'], { cwd: root, env })).stdout)
    expect(rest.status).toBe("success")
    expect(lineText(rest.data.content)).toBe("0123456789".repeat(300))
    const late = JSON.parse((await runBinary(["tool", "read", '{"path":"late.txt","limit":1}'], { cwd: root, env })).stdout)
    expect(late.data.line_ending).toBe("lf")
  })
})
