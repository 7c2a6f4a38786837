import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { expandBraces } from "../../src/search/brace-expansion.ts"
import { comparePaths, GlobMatcher, GlobPatternError, matchesPath } from "../../src/search/glob-pattern.ts"

/** bash's own brace expansion of `pattern` (globbing off), one word per line. */
const bashBraces = (pattern: string): Array<string> =>
  execFileSync("bash", ["-c", `set -f; printf '%s\\n' ${pattern}`], { encoding: "utf8" }).split("\n").slice(0, -1)

describe("brace expansion (bash rules)", () => {
  test.each([
    "{a,b}",
    "x{a,b}y",
    "{a,b}{1,2}",
    "a{b,c{d,e}}f",
    "{src,test}/**/*.{ts,tsx}",
    "{1..5}",
    "{5..1}",
    "{01..10}",
    "{1..10..3}",
    "{a..e}",
    "{e..a..2}",
    "{}",
    "{a}",
    "a{,b}",
    "{a,}",
    "{1..x}",
    "{a,b",
    "a}b{c,d}",
    "\\{a,b}",
    "{a\\,b,c}",
    "{-2..2}",
  ])("%s expands as bash does", (pattern) => {
    // bash's printf shows the words after quote removal, and drops empty ones.
    const ours = expandBraces(pattern)
      .map((w) => w.replace(/\\(.)/g, "$1"))
      .filter((w) => w !== "")
    expect(ours).toEqual(bashBraces(pattern))
  })

  test("a runaway expansion is refused", () => {
    expect(() => expandBraces("{1..100}{1..100}")).toThrow("more than 1024")
  })
})

describe("GlobMatcher", () => {
  const m = (pattern: string, dot = false) => GlobMatcher.compile(pattern, { dot })
  const matches = (pattern: string, path: string, dot = false) => matchesPath(m(pattern, dot), path)

  test("`**/` matches at depth zero and below", () => {
    expect(matches("**/*.md", "README.md")).toBe(true)
    expect(matches("**/*.md", "docs/a/b.md")).toBe(true)
    expect(matches("src/**/*.ts", "src/a.ts")).toBe(true)
    expect(matches("src/**/*.ts", "src/x/y/a.ts")).toBe(true)
    expect(matches("src/**/*.ts", "lib/a.ts")).toBe(false)
  })

  test("`*` and `?` stay within one segment; `**` inside a segment is `*`", () => {
    expect(matches("*.ts", "a.ts")).toBe(true)
    expect(matches("*.ts", "src/a.ts")).toBe(false)
    expect(matches("src/a?.ts", "src/ab.ts")).toBe(true)
    expect(matches("src/a?.ts", "src/a/b.ts")).toBe(false)
    expect(matches("a**b", "axxb")).toBe(true)
    expect(matches("a**b", "ax/xb")).toBe(false)
  })

  test("`**` as the last segment matches every file below", () => {
    expect(matches("src/**", "src/a")).toBe(true)
    expect(matches("src/**", "src/a/b/c")).toBe(true)
    expect(matches("src/**", "lib/a")).toBe(false)
  })

  test("character classes: ranges, negation, POSIX classes, literal ], unclosed [", () => {
    expect(matches("[a-c]x", "bx")).toBe(true)
    expect(matches("[a-c]x", "dx")).toBe(false)
    expect(matches("[!a-c]x", "dx")).toBe(true)
    expect(matches("[^a-c]x", "ax")).toBe(false)
    expect(matches("[[:digit:]]*", "1abc")).toBe(true)
    expect(matches("[[:upper:]]*", "abc")).toBe(false)
    expect(matches("[]]x", "]x")).toBe(true)
    expect(matches("a[b", "a[b")).toBe(true)
    expect(matches("\\*", "*")).toBe(true)
    expect(matches("\\*", "a")).toBe(false)
  })

  test("leading dots need an explicit `.` unless dotglob", () => {
    expect(matches("*", ".env")).toBe(false)
    expect(matches("*", ".env", true)).toBe(true)
    expect(matches(".*", ".env")).toBe(true)
    expect(matches("**/*.yml", ".github/ci.yml")).toBe(false)
    expect(matches("**/*.yml", ".github/ci.yml", true)).toBe(true)
    expect(matches(".github/**/*.yml", ".github/workflows/ci.yml")).toBe(true)
    expect(matches("**/.env", "a/b/.env")).toBe(true)
    expect(matches("?env", ".env")).toBe(false)
    expect(matches("[.]env", ".env")).toBe(false)
  })

  test("a literal segment is reported as explicit (it may name ignored folders)", () => {
    const g = m("node_modules/react/*.json")
    const step = g.enter(g.start(), "node_modules")
    expect(step.explicit).toBe(true)
    expect(g.enter(g.start(), "src").state).toEqual([])
    expect(m("**/*.json").enter(m("**/*.json").start(), "node_modules").explicit).toBe(false)
  })

  test("pruning: a folder no pattern can match below is not entered", () => {
    const g = m("src/*/index.ts")
    const src = g.enter(g.start(), "src").state
    expect(g.canDescend(src)).toBe(true)
    const child = g.enter(src, "a").state
    expect(g.matches(child, "index.ts", false)).toBeDefined()
    const deep = g.enter(child, "b").state
    expect(g.canDescend(deep)).toBe(false)
    expect(g.matches(deep, "index.ts", false)).toBeUndefined()
    expect(g.matches(src, "x", false)).toBeUndefined()
  })

  test("a trailing slash asks for directories", () => {
    const g = m("src/*/")
    const src = g.enter(g.start(), "src").state
    expect(g.matches(src, "lib", true)).toBeDefined()
    expect(g.matches(src, "lib", false)).toBeUndefined()
  })

  test("matchBase: a pattern without a slash matches the name at any depth", () => {
    const g = GlobMatcher.compile("*.ts", { dot: true, matchBase: true })
    expect(matchesPath(g, "a/b/c.ts")).toBe(true)
    expect(matchesPath(g, ".hidden/c.ts")).toBe(true)
    const anchored = GlobMatcher.compile("src/*.ts", { dot: true, matchBase: true })
    expect(matchesPath(anchored, "x/src/a.ts")).toBe(false)
  })

  test.each([
    ["/etc/*", "absolute"],
    ["{a,/b}", "absolute"],
    ["../*.ts", "'..'"],
    ["src/../../x", "'..'"],
    ["~/x", "home"],
    ["", "empty"],
    ["C:\\x\\*", "absolute"],
  ])("%s is refused (%s)", (pattern, why) => {
    expect(() => m(pattern)).toThrow(GlobPatternError)
    expect(() => m(pattern)).toThrow(why)
  })

  test("./ prefixes are dropped", () => {
    expect(matches("./src/*.ts", "src/a.ts")).toBe(true)
  })

  test("comparePaths is tree order", () => {
    expect(["a-c", "a/b", "a", "B", "a/a/z", "a.b"].sort(comparePaths)).toEqual(["B", "a", "a/a/z", "a/b", "a-c", "a.b"])
  })
})
