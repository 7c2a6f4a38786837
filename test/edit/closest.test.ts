import { describe, expect, test } from "bun:test"
import { closestRegions, renderRegion } from "../../src/edit/closest.ts"

describe("closest regions", () => {
  const file = [
    "import os",
    "",
    "def load(path):",
    "    with open(path) as f:",
    "        return f.read()",
    "",
    "def save(path, data):",
    "    with open(path, 'w') as f:",
    "        f.write(data)",
  ]

  test("a near-miss multi-line old_string points at its region first", () => {
    const c = closestRegions(file, "def save(path, text):\n    with open(path, 'w') as fh:\n        fh.write(text)")
    expect(c[0]).toMatchObject({ startLine: 7, endLine: 9 })
    expect(c[0]!.similarity).toBeGreaterThan(0.6)
  })

  test("a one-line old_string found inside a longer line", () => {
    const c = closestRegions(file, "open(path, 'wb')")
    expect(c[0]!.startLine).toBe(8)
  })

  test("regions do not overlap and fall under the minimum similarity", () => {
    const c = closestRegions(file, "def lod(path):\n    with open(path) as f:", { max: 3 })
    for (let i = 1; i < c.length; i++) expect(c[i]!.startLine > c[0]!.endLine || c[i]!.endLine < c[0]!.startLine).toBe(true)
    expect(closestRegions(file, "zzzzzz qqqqqq")).toEqual([])
  })

  test("renderRegion numbers lines like read, with context, eliding long regions and lines", () => {
    expect(renderRegion(file, 3, 3, { context: 1 })).toBe("     2\t\n     3\tdef load(path):\n     4\t    with open(path) as f:")
    const many = Array.from({ length: 100 }, (_, i) => `l${i + 1}`)
    const shown = renderRegion(many, 10, 90, { context: 0, maxLines: 4 })
    expect(shown).toBe("    10\tl10\n    11\tl11\n   ...\t(77 lines not shown)\n    89\tl89\n    90\tl90")
    expect(renderRegion(["x".repeat(50)], 1, 1, { maxWidth: 10 })).toBe(`     1\t${"x".repeat(10)}… [40 more characters]`)
  })
})
