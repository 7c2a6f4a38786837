import { describe, expect, test } from "bun:test"
import { GlobMatcher, matchesPath } from "../../src/search/glob-pattern.ts"
import { commandGlob, pathGlob } from "../../src/permission/path-patterns.ts"
import { IgnorePatterns } from "../../src/workspace/gitignore.ts"
import { callTool, project } from "../support/harness.ts"
import { crossCheck } from "./gitignore-crosscheck.ts"

// Patterns that make a backtracking matcher take exponential (or high-polynomial) time. Each check is a
// hang guard with a generous bound, not a speed figure.
const HANG_MS = 3000
const timed = <T>(f: () => T): { value: T; ms: number } => {
  const start = performance.now()
  const value = f()
  return { value, ms: performance.now() - start }
}
const STARS = "*a*a*a*a*a*a*a*a*a*a*a*a*b"
const LONG = "a".repeat(5000)

describe("gitignore rules against the ignore package", () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: 2,000 random ignore files × 4 paths judged alike`, () => {
      expect(crossCheck(seed, 2000)).toEqual([])
    })
  }
})

describe("wildcards in linear time", () => {
  test("glob segments, ignore files and permission patterns on adversarial input", () => {
    const cases: Array<[string, () => boolean]> = [
      ["glob segment", () => matchesPath(GlobMatcher.compile(STARS, { dot: true }), LONG)],
      ["glob classes", () => matchesPath(GlobMatcher.compile("*[ab]*[ab]*[ab]*[ab]*[ab]*[ab]*[ab]*[ab]*c", { dot: true }), "ab".repeat(2000))],
      ["glob globstars", () => matchesPath(GlobMatcher.compile("**/a/**/a/**/a/**/a/**/a/**/a/**/b", { dot: true }), "a/".repeat(300) + "c")],
      ["ignore stars", () => IgnorePatterns.parse(STARS).test(LONG) !== undefined],
      ["ignore globstars", () => IgnorePatterns.parse("a/**/**/**/**/**/**/**/**/**/**/**/**/b").test("a/" + "x/".repeat(300) + "c") !== undefined],
      ["ignore mixed", () => IgnorePatterns.parse("**/a/**/a/**/a/**/a/**/a/**/a/**/b").test("a/".repeat(300) + "c") !== undefined],
      ["permission command", () => commandGlob(STARS).test(LONG)],
      ["permission path", () => pathGlob("**/a/**/a/**/a/**/a/**/a/**/a/**/b").test("a/".repeat(300) + "c")],
    ]
    for (const [name, run] of cases) {
      const { value, ms } = timed(run)
      expect({ name, value }).toEqual({ name, value: false })
      expect({ name, fast: ms < HANG_MS }).toEqual({ name, fast: true })
    }
  })

  test("the same patterns still match what they should", () => {
    expect(matchesPath(GlobMatcher.compile(STARS, { dot: true }), `${LONG}b`)).toBe(true)
    expect(IgnorePatterns.parse("a/**/b").test("a/x/y/b")).toBe("ignored")
    expect(IgnorePatterns.parse("a/**/b\n!a/x/**/b").test("a/x/y/b")).toBe("whitelisted")
    expect(commandGlob("npm *").test("npm test -- --watch")).toBe(true)
    expect(pathGlob("src/**").test("src/a/b.ts")).toBe(true)
    expect(pathGlob("*.ts").test("deep/x.ts")).toBe(true)
    expect(pathGlob("*.ts").test("deep/x.tsx")).toBe(false)
  })

  test("glob, list and grep through the tools: an exponential pattern and ignore file end quickly in an envelope", async () => {
    const long = "a".repeat(200)
    const root = project({
      [`${long}.txt`]: "x\n",
      [`d/${long}`]: "a\n",
      ".gitignore": `${STARS}\na/**/**/**/**/**/**/**/**/**/**/**/**/b\n`,
    })
    for (const [tool, params] of [
      ["glob", { pattern: STARS }],
      ["glob", { pattern: `**/${STARS}/**` }],
      ["list", { path: "d", ignore: [STARS] }],
      ["grep", { pattern: "a", include: STARS }],
    ] as const) {
      const start = performance.now()
      const outcome = await callTool(root, tool, params)
      expect({ tool, ms: performance.now() - start < HANG_MS }).toEqual({ tool, ms: true })
      expect(["success", "partial", "error"]).toContain(outcome.envelope.status)
    }
  })
})
