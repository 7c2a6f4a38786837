import { describe, expect, test } from "bun:test"
import { applyPatch, createTwoFilesPatch } from "diff"
import { unifiedDiff } from "../../src/edit/diff.ts"

const names = { oldName: "a/f", newName: "b/f" }
const reference = (a: string, b: string) =>
  createTwoFilesPatch("a/f", "b/f", a, b, undefined, undefined, {
    context: 3,
    headerOptions: { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
  })

describe("unifiedDiff", () => {
  test("no change: empty diff and zero counts", () => {
    expect(unifiedDiff("a\n", "a\n", names)).toMatchObject({ diff: "", additions: 0, deletions: 0, truncated: false })
  })

  test("the same output as jsdiff on whole texts (window shifting is invisible)", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`)
    const base = lines.join("\n") + "\n"
    const cases: Array<[string, string]> = [
      [base, base.replace("line 15\n", "LINE 15\n")],
      [base, base.replace("line 0\n", "")],
      [base, base + "tail\n"],
      [base, base.replace("line 3\n", "x\n").replace("line 25\n", "y\n")],
      ["", "new\nfile\n"],
      ["a\nb", "a\nb\nc"],
      ["x\n", ""],
    ]
    for (const [a, b] of cases) expect(unifiedDiff(a, b, names).diff).toBe(reference(a, b))
  })

  test("hunk numbers in a large text are the real line numbers, and the patch applies", () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `row ${i}`)
    const a = lines.join("\n") + "\n"
    const b = a.replace("row 30000\n", "row 30000 changed\n")
    const d = unifiedDiff(a, b, names)
    expect(d.diff.split("\n")[2]).toBe("@@ -29998,7 +29998,7 @@")
    expect(d).toMatchObject({ additions: 1, deletions: 1, firstChangedLine: 30001 })
    expect(applyPatch(a, d.diff)).toBe(b)
  })

  test("random edits: the diff always applies back to the new text", () => {
    let seed = 42
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n)
    for (let t = 0; t < 300; t++) {
      const lines = Array.from({ length: rnd(25) }, () => `l${rnd(4)}`)
      const edited = [...lines]
      for (let k = 0; k < 1 + rnd(3); k++) {
        const i = rnd(edited.length + 1)
        const op = rnd(3)
        if (op === 0) edited.splice(i, 0, `n${rnd(4)}`)
        else if (op === 1) edited.splice(i, 1)
        else edited[i] = `c${rnd(4)}`
      }
      const a = lines.length ? lines.join("\n") + (rnd(2) ? "\n" : "") : ""
      const b = edited.length ? edited.join("\n") + (rnd(2) ? "\n" : "") : ""
      expect(applyPatch(a, unifiedDiff(a, b, names).diff)).toBe(b)
    }
  })

  test("too slow to diff line by line: one replace hunk that still applies", () => {
    const a = "ctx\n" + Array.from({ length: 50 }, (_, i) => `a${i}`).join("\n") + "\nend\n"
    const b = "ctx\n" + Array.from({ length: 50 }, (_, i) => `b${i}`).join("\n") + "\nend\n"
    const d = unifiedDiff(a, b, { ...names, timeoutMs: -1 })
    expect(d).toMatchObject({ additions: 50, deletions: 50 })
    expect(applyPatch(a, d.diff)).toBe(b)
  })

  test("cut to maxLines / maxBytes with exact counts", () => {
    const b = Array.from({ length: 100 }, (_, i) => `x${i}`).join("\n") + "\n"
    const byLines = unifiedDiff("", b, { ...names, maxLines: 10 })
    expect(byLines).toMatchObject({ truncated: true, additions: 100, totalLines: 103 })
    expect(byLines.diff.split("\n").length - 1).toBe(10)
    const wide = unifiedDiff("", "y".repeat(5000) + "\n", { ...names, maxBytes: 1000 })
    expect(wide.truncated).toBe(true)
    expect(Buffer.byteLength(wide.diff)).toBeLessThan(1100)
  })
})

describe("unifiedDiff: over-long lines (minified code)", () => {
  test("a changed line of megabytes is shown as a window around where it changed, on both sides; the whole diff is kept for saving", () => {
    const before = `${"var a=1;".repeat(100_000)}MARK;${"var b=2;".repeat(10)}\nnext\n`
    const after = before.replace("MARK;", "DONE;")
    const d = unifiedDiff(before, after, { oldName: "a/min.js", newName: "b/min.js" })
    const [minus, plus] = d.diff.split("\n").filter((l) => /^[-+][^-+]/.test(l))
    expect(minus).toContain("var a=1;MARK;var b=2;")
    expect(plus).toContain("var a=1;DONE;var b=2;")
    expect(minus).toMatch(/^-….{290,310} \[line cut: characters \d+-\d+ of 800085\]$/)
    expect(d.truncated).toBe(true)
    expect(d.whole).toContain(`-${"var a=1;".repeat(100_000)}MARK;`)
    expect([d.additions, d.deletions]).toEqual([1, 1])
  })

  test("a long context line is cut from its start; short lines stay whole and the diff is not marked cut for them", () => {
    const long = "x".repeat(5000)
    const d = unifiedDiff(`${long}\na\n`, `${long}\nb\n`, { oldName: "a/f", newName: "b/f" })
    expect(d.diff).toContain(` ${"x".repeat(300)}… [line cut: characters 1-300 of 5000]`)
    expect(d.diff).toContain("\n-a\n+b\n")
    const short = unifiedDiff("a\n", "b\n", { oldName: "a/f", newName: "b/f" })
    expect(short.truncated).toBe(false)
  })
})

