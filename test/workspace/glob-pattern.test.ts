import { describe, expect, test } from "bun:test"
import { globMatcher, globToRegExp } from "../../src/workspace/glob-pattern.ts"

describe("globToRegExp", () => {
  test.each([
    ["*.py", "a.py", true],
    ["*.py", "src/a.py", false],
    ["src/*.py", "src/a.py", true],
    ["src/*.py", "src/x/a.py", false],
    ["**/*.py", "a.py", true],
    ["**/*.py", "src/x/a.py", true],
    ["src/**/*.py", "src/a.py", true],
    ["src/**/*.py", "src/x/y/a.py", true],
    ["src/**", "src/x/y", true],
    ["**", "anything/at/all", true],
    ["?.md", "a.md", true],
    ["?.md", "ab.md", false],
    ["[abc].txt", "b.txt", true],
    ["[!abc].txt", "b.txt", false],
    ["[!abc].txt", "d.txt", true],
    ["*.{ts,tsx}", "a.tsx", true],
    ["*.{ts,tsx}", "a.js", false],
    ["build/", "build", true],
    ["./src/*.py", "src/a.py", true],
    ["a+b(1).txt", "a+b(1).txt", true],
    ["a.txt", "abtxt", false],
  ] as const)("%s ~ %s → %p", (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected)
  })

  test("globMatcher matches any pattern against any given form; blank patterns match nothing", () => {
    const m = globMatcher(["*.pyc", "src/gen_*", " "])
    expect(m("x.pyc", "lib/x.pyc")).toBe(true)
    expect(m("gen_a.py", "src/gen_a.py")).toBe(true)
    expect(m("main.py", "src/main.py")).toBe(false)
    expect(globMatcher([])("a")).toBe(false)
  })
})
