import { describe, expect, test } from "bun:test"
import { GlobMatcher, type GlobState } from "../../src/search/glob-pattern.ts"

/**
 * The walk's two shortcuts must never change an answer: the byte filter on
 * names (fileNameFilter) may only refuse names the matcher refuses too, and
 * the per-folder rule (filesIn) must say exactly what `matches` says for
 * every name of the folder. Checked over many patterns, states and names.
 */

const PATTERNS = [
  "**/*",
  "**/*.py",
  "**/*.{ts,tsx}",
  "src/**/*.ts",
  "**/Makefile",
  "**/test_*.py",
  "**/test_*",
  "*.json",
  "**/.env*",
  "**/naïve*.md",
  "**/*é.py",
  "**/😀*",
  "{src,lib}/**/*.{py,js}",
  "pkg/**",
  "**/",
  "*/*/",
  "**/m?/*.md",
  "**/[a-f]*.ts",
  "**/*[0-9].js",
  "**/a*a",
  "**/ab*ba",
  "weird\\[1\\]/**/*.py",
  "a\\*b/*.c",
  "**/*.py/",
  "src/*",
  "**/*.min.*",
  "**/x*y*z",
  "***/*.c",
  "docs/**/README*",
]

const NAMES = [
  "a.py",
  "b.PY",
  "c.py.bak",
  ".py",
  "py",
  "x.ts",
  "x.tsx",
  "y.d.ts",
  "Makefile",
  "Makefile.am",
  ".Makefile",
  "test_1.py",
  "test_.py",
  "test_",
  "atest_1.py",
  "anvil.json",
  ".env",
  ".env.local",
  "naïve1.md",
  "naive1.md",
  "café.py",
  "cafe.py",
  "😀.txt",
  "a",
  "aa",
  "aba",
  "abba",
  "abxba",
  "aab.js",
  "f9.js",
  "f.js",
  "m1",
  "README.md",
  "READ",
  "x.min.js",
  "xyz",
  "xaybz",
  "zyx",
  "a*b",
  "src",
  "lib",
  "pkg",
  "docs",
  "weird[1]",
  ".hidden",
]

/** Every state the matcher reaches from the root through up to three folder names of the list. */
const states = (g: GlobMatcher): Array<GlobState> => {
  const out: Array<GlobState> = [g.start()]
  const seen = new Set([g.start().join(",")])
  for (let depth = 0; depth < 3; depth++) {
    for (const state of [...out]) {
      for (const name of NAMES) {
        const next = g.enter(state, name).state
        const key = next.join(",")
        if (next.length > 0 && !seen.has(key)) {
          seen.add(key)
          out.push(next)
        }
      }
    }
  }
  return out
}

const encoder = new TextEncoder()

describe("glob shortcuts agree with the matcher", () => {
  for (const dot of [false, true]) {
    for (const pattern of PATTERNS) {
      test(`${pattern}${dot ? " (dotglob)" : ""}`, () => {
        const g = GlobMatcher.compile(pattern, { dot })
        const filter = g.fileNameFilter()
        for (const state of states(g)) {
          const rule = g.filesIn(state)
          for (const name of NAMES) {
            const match = g.matches(state, name, false)
            // The byte filter: a name the matcher accepts always passes (in a buffer, at an offset).
            if (match !== undefined && filter !== undefined) {
              const bytes = encoder.encode(`..${name}..`)
              expect(filter.accepts(bytes, 2, bytes.length - 2)).toBe(true)
            }
            if (rule === "none") expect(match).toBeUndefined()
            else if (rule === "any") expect(match).toEqual({ state: [], explicit: false })
            else if (rule === "visible") {
              if (name.startsWith(".")) expect(match).toBeUndefined()
              else expect(match).toEqual({ state: [], explicit: false })
            }
          }
        }
      })
    }
  }

  test("the filter refuses what cannot match and is absent when anything can", () => {
    const accepts = (pattern: string, name: string) => {
      const filter = GlobMatcher.compile(pattern, { dot: false }).fileNameFilter()
      const bytes = encoder.encode(name)
      return filter === undefined ? "no filter" : filter.accepts(bytes, 0, bytes.length)
    }
    expect(accepts("**/*.py", "a.js")).toBe(false)
    expect(accepts("**/*.py", "a.py")).toBe(true)
    expect(accepts("**/*.{ts,tsx}", "a.tsx")).toBe(true)
    expect(accepts("**/*.{ts,tsx}", "a.ts.map")).toBe(false)
    expect(accepts("**/Makefile", "Makefile.am")).toBe(false)
    expect(accepts("**/test_*.py", "test_.py")).toBe(true)
    expect(accepts("**/test_*.py", "test.py")).toBe(false)
    // The prefix and the suffix may not overlap: `a*a` needs two characters.
    expect(accepts("**/a*a", "a")).toBe(false)
    // Beyond ASCII only the ASCII ends are tested: the name's bytes may hold the text in NFD (the match decides).
    expect(accepts("**/*é.py", "café.py")).toBe(true)
    expect(accepts("**/*é.py", "café.py".normalize("NFD"))).toBe(true)
    expect(accepts("**/*é.py", "café.js")).toBe(false)
    expect(accepts("**/café.txt", "café.txt".normalize("NFD"))).toBe(true)
    expect(accepts("**/café.txt", "cafe.md")).toBe(false)
    // Folders-only patterns accept no file at all.
    expect(accepts("**/", "a.py")).toBe(false)
    for (const open of ["**/*", "src/**", "**/?", "**/[ab]"]) expect(accepts(open, "x")).not.toBe(false)
    expect(accepts("{**/*.py,**/*}", "x")).toBe("no filter")
    // Case-insensitive matching (grep's include on some systems) gets no byte filter.
    expect(GlobMatcher.compile("**/*.py", { dot: false, nocase: true }).fileNameFilter()).toBeUndefined()
  })

  test("the per-folder rule: every visible file for **/*, none where only folders can match", () => {
    const all = GlobMatcher.compile("**/*", { dot: false })
    expect(all.filesIn(all.start())).toBe("visible")
    expect(GlobMatcher.compile("**/*", { dot: true }).filesIn(all.start())).toBe("any")
    const src = GlobMatcher.compile("src/**/*.ts", { dot: false })
    expect(src.filesIn(src.start())).toBe("none")
    expect(src.filesIn(src.enter(src.start(), "src").state)).toBe("each")
    const below = GlobMatcher.compile("src/**", { dot: false })
    expect(below.filesIn(below.enter(below.start(), "src").state)).toBe("visible")
  })
})
