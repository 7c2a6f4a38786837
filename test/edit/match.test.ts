import { describe, expect, test } from "bun:test"
import { findMatches } from "../../src/edit/match.ts"

const found = (text: string, needle: string, replaceAll = false) => {
  const r = findMatches(text, needle, { replaceAll })
  if (r.kind !== "found") throw new Error(`expected a match, got ${r.kind}`)
  return r
}

describe("match chain", () => {
  test("exact: one occurrence, its offsets and lines", () => {
    const r = found("a\nbc\nd\n", "bc\nd")
    expect(r.strategy).toBe("exact")
    expect(r.ranges).toEqual([{ start: 2, end: 6, startLine: 2, endLine: 3 }])
  })

  test("exact: several occurrences are ambiguous unless replaceAll; occurrences do not overlap", () => {
    const amb = findMatches("aaaa", "aa", { replaceAll: false })
    expect(amb).toMatchObject({ kind: "ambiguous", strategy: "exact", total: 2 })
    expect(found("aaaa", "aa", true).ranges.map((r) => r.start)).toEqual([0, 2])
  })

  test("the fallbacks are tried in order and only when there is no exact match", () => {
    expect(found("x = 1  \n", "x = 1\n").strategy).toBe("line_trimmed")
    expect(found("    x = 1\n    y = 2\n", "x = 1\ny = 2").strategy).toBe("indentation")
    expect(found("x  =  1\n", "x = 1").strategy).toBe("whitespace")
    // An exact match wins even where a fallback would match elsewhere.
    expect(found("x = 1  \nx = 1\n", "x = 1\n").strategy).toBe("exact")
  })

  test("a line_trimmed region takes the file's line break when old_string ended with one", () => {
    const text = "keep\nx = 1  \nafter\n"
    const r = found(text, "x = 1\n")
    expect(text.slice(r.ranges[0]!.start, r.ranges[0]!.end)).toBe("x = 1  \n")
  })

  test("indentation: removing a uniform over-indent from new_string", () => {
    const r = found("def f():\n  a\n  b\n", "    def f():\n      a")
    expect(r.strategy).toBe("indentation")
    expect(r.adapt("    def g():\n      a")).toBe("def g():\n  a")
  })

  test("indentation: old_string starting at the first word of an indented line keeps the file's indentation", () => {
    const text = "class A:\n    def f(self):\n        return 1\n"
    const r = found(text, "def f(self):\n    return 1")
    expect(text.slice(r.ranges[0]!.start, r.ranges[0]!.end)).toBe("def f(self):\n        return 1")
    expect(r.adapt("def f(self):\n    return 2")).toBe("def f(self):\n        return 2")
  })

  test("indentation: tabs in the file, four spaces in old_string", () => {
    const r = found("\tif a {\n\t\tb()\n\t}\n", "    if a {\n        b()\n    }")
    expect(r.adapt("    if a {\n        c()\n          d()\n    }")).toBe("\tif a {\n\t\tc()\n\t\t  d()\n\t}")
  })

  test("a fallback that matches several places is ambiguous with their lines", () => {
    const r = findMatches("x = 1 \ny\nx = 1\t\n", "x = 1\n", { replaceAll: false })
    expect(r).toMatchObject({ kind: "ambiguous", strategy: "line_trimmed", total: 2 })
    if (r.kind === "ambiguous") expect(r.ranges.map((x) => x.startLine)).toEqual([1, 3])
  })

  test("a fallback never applies to several places, even with replaceAll", () => {
    expect(findMatches("x = 1 \nx = 1\t\n", "x = 1\n", { replaceAll: true }).kind).toBe("ambiguous")
  })

  test("nothing alike: none; blank-only or empty needles never fuzzy-match", () => {
    expect(findMatches("abc\n", "xyz", { replaceAll: false }).kind).toBe("none")
    expect(findMatches("a\n\n\nb\n", "  \n", { replaceAll: false }).kind).toBe("none")
    expect(findMatches("abc", "", { replaceAll: false }).kind).toBe("none")
  })

  test("lines differing in content are not matched by any fallback", () => {
    expect(findMatches("    foo(a, b)\n", "foo(a, c)", { replaceAll: false }).kind).toBe("none")
  })
})
