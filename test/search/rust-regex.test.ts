import { describe, expect, test } from "bun:test"
import { rgPath } from "@vscode/ripgrep"
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { decodeForSearch } from "../../src/search/fallback-search.ts"
import { crlfModeFor, RegexSyntaxError, translateRustRegex } from "../../src/search/rust-regex.ts"
import { tempDir } from "../support/harness.ts"

/** Lines that tell regex dialects apart: Unicode letters, digits and spaces, case folding corner cases, CR, symbols. */
const CORPUS = [
  "hello world",
  "Hello World",
  "HELLO",
  "café naïve",
  "Straße STRASSE",
  "ΑΒΓ αβγ Ωmega",
  "日本語テキスト",
  "tab\there",
  "k K \u212A",
  "ſ long s",
  "snake_case_name",
  "camelCaseName",
  "123 456",
  "١٢٣ arabic digits",
  "a+b=c",
  "[brackets] {braces} (parens)",
  "trailing spaces   ",
  "\u00A0nbsp here",
  "emoji 😀 smile",
  "x\ry carriage",
  "",
  "under_score __init__",
  "dollar $5 caret ^",
  "back\\slash",
  "end.",
  "ends with cr\r",
  "\u212A\u017F",
]

const dir = tempDir("anvil-regex-")
const file = join(dir, "corpus.txt")
// And lines that are not UTF-8 (Latin-1 bytes, a cut sequence): no Unicode class matches such a byte in ripgrep.
writeFileSync(file, Buffer.concat([Buffer.from(CORPUS.join("\n") + "\n"), Buffer.from("caf\xe9 na\xefve x\n\xff\xfe\xe2\x82 end\n", "latin1")]))
const lines = decodeForSearch(new Uint8Array(require("node:fs").readFileSync(file)))!.split("\n").slice(0, -1)

const rgLines = (pattern: string, caseInsensitive: boolean, crlf = false): Array<number> | string => {
  const r = spawnSync(rgPath, ["--no-config", caseInsensitive ? "-i" : "-s", ...(crlf ? ["--crlf"] : []), "-n", "--no-heading", "--regexp", pattern, "--", file], {
    encoding: "utf8",
  })
  if (r.status === 2) return r.stderr
  return r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => Number(l.slice(0, l.indexOf(":"))))
}

const ourLines = (pattern: string, caseInsensitive: boolean, crlf = false): Array<number> => {
  const t = translateRustRegex(pattern, { caseInsensitive, crlf })
  const re = new RegExp(t.source, t.flags)
  return lines.flatMap((l, i) => (re.test(l) ? [i + 1] : []))
}

const PATTERNS = [
  "hello",
  "Hello",
  "\\bworld\\b",
  "\\w+",
  "^\\w+$",
  "\\d+",
  "\\d{3}",
  "(?-u:\\d)+",
  "(?-u:\\w)+é",
  "\\p{Greek}+",
  "\\pL{4}",
  "\\p{Lu}",
  "\\P{L}",
  "\\p{sc=Han}",
  "\\p{Han}",
  "\\p{Lowercase_Letter}x",
  "k",
  "(?-u)k",
  "s",
  "(?-u)s",
  ".",
  "^.{5}$",
  "\\s\\s+",
  "\\s$",
  "[[:punct:]]",
  "[[:^alpha:][:space:]]{3}",
  "\\$",
  "\\^",
  "\\\\",
  "[^a-z ]",
  "😀",
  ".😀",
  "\\x{1F600}",
  "\\u{00A0}",
  "\\W",
  "\\B",
  "\\Bll",
  "\\<c",
  "e\\>",
  "\\b{start}s",
  "e\\b{end}",
  "x.y",
  "x\\ry",
  "ß",
  "STRASSE",
  "[α-ω]+",
  "[\\p{L}&&\\p{Greek}]",
  "[a-z--[aeiou]]{4}",
  "[\\w~~\\d]+\\d",
  "(?i)HELLO",
  "(?-i)hello",
  "hel(?i:LO)",
  "(?x) h e l l o  # comment\n",
  "(?x)[h e]llo",
  "(?U)l+",
  "l+?o",
  "(?s)a.b",
  "\\Ahello",
  "end\\.\\z",
  "^$",
  "",
  "a|",
  "(|x)y",
  "^*h",
  "l**",
  "(?:ab)?c",
  "(?P<first>h)(?<second>e)",
  "[]a]",
  "[^]a]x",
  "[a-]",
  "\\x41",
  "\\t",
  "\\a",
  "cr\\r$",
  "cr$",
  "\\.$",
  "_+\\w",
  "\\p{Nd}+",
  "[[:digit:]]+",
  "\\p{White_Space}{2}",
  "(?i)ǅ",
  "[[:foo:]]",
  "(?-u:\\w)",
  "(?-u:\\w)\\s",
  "(?-u:\\W)",
  "caf. ",
  "caf\\W",
  "caf[^x]",
  "caf\\S",
  "caf\\P{L}",
  "(?-u:caf.)",
  "\\x{FFFD}",
  "na.ve",
  "^.. end",
  "(?-u:^..) end",
  "x$",
]

describe("Rust regex → JavaScript: the same lines as ripgrep", () => {
  for (const caseInsensitive of [false, true]) {
    test.each(PATTERNS)(`%p (case-insensitive ${caseInsensitive})`, (pattern) => {
      const expected = rgLines(pattern, caseInsensitive)
      if (typeof expected === "string") throw new Error(`rg rejected ${pattern}: ${expected}`)
      expect(ourLines(pattern, caseInsensitive)).toEqual(expected)
    })
  }
})

describe("CRLF mode (ripgrep --crlf): the same lines as ripgrep, for every pattern that names no \\r", () => {
  const crlfPatterns = [...PATTERNS, "y$", "^y", "r$", "\\s+$", "[^x]$", "\\W$", "^$", "\\B$", "[[:cntrl:]]", "[[:space:]]y", "(?-R)cr$"].filter(crlfModeFor)
  test("the patterns that name a \\r (CRLF mode would refuse them) or use \\z (CRLF mode moves it) are read without it", () => {
    expect(PATTERNS.filter((p) => !crlfModeFor(p))).toEqual(["x\\ry", "end\\.\\z", "cr\\r$"])
    for (const p of ["\\x0D", "\\x{d}", "\\u000D", "[\\r]", "[^\\r\\n]", "a|\\r", "\r", "[\\x0d-\\x20]"]) expect(crlfModeFor(p)).toBe(false)
    for (const p of ["\\\\r", "[\\x00-\\x1f]", "\\s", "(?x) a # \\r"]) expect(crlfModeFor(p)).toBe(true)
  })
  for (const caseInsensitive of [false, true]) {
    test.each(crlfPatterns)(`%p (case-insensitive ${caseInsensitive})`, (pattern) => {
      const expected = rgLines(pattern, caseInsensitive, true)
      if (typeof expected === "string") throw new Error(`rg rejected ${pattern}: ${expected}`)
      expect(ourLines(pattern, caseInsensitive, true)).toEqual(expected)
    })
  }
  test("a literal \\r is refused in CRLF mode, as ripgrep refuses it", () => {
    expect(typeof rgLines("a\\rb", false, true)).toBe("string")
    expect(() => translateRustRegex("a\\rb", { caseInsensitive: false, crlf: true })).toThrow('the literal "\\r" is not allowed in a regex')
  })
  test("a valid pattern the built-in search cannot run is judged by its text: one naming a \\r is not put in CRLF mode, where ripgrep would refuse it", () => {
    for (const p of ["a{1001}|\\r$", "(?-u:\\xff)|\\r$", "(?-u:\\xff)|\\x0D", "a{1001}|\\z"]) {
      expect(crlfModeFor(p)).toBe(false)
      expect(typeof rgLines(p, false, false)).not.toBe("string")
    }
    for (const p of ["a{1001}|y$", "(?-u:\\xff)|y$"]) expect(crlfModeFor(p)).toBe(true)
    // An invalid pattern goes to ripgrep as it is, which reports it.
    expect(crlfModeFor("(\\r")).toBe(true)
  })
})

describe("Rust regex errors: refused where ripgrep refuses", () => {
  const INVALID = [
    "(",
    ")",
    "[a",
    "a{2,1}",
    "a{,3}",
    "(?<=a)b",
    "(?<!a)b",
    "(?=a)",
    "(?!a)",
    "(a)\\1",
    "*a",
    "+",
    "a\\",
    "(?z)",
    "[z-a]",
    "x{",
    "(?P<n>a)(?P<n>b)",
    "\\q",
    "a\\nb",
    "\\x{110000}",
    "[[:alpha:]",
    "(?x) a # the comment swallows the parenthesis",
  ]
  test.each(INVALID)("%p", (pattern) => {
    expect(typeof rgLines(pattern, false)).toBe("string")
    expect(() => translateRustRegex(pattern, { caseInsensitive: false })).toThrow(RegexSyntaxError)
  })

  test("the messages use ripgrep's words", () => {
    const message = (p: string) => {
      try {
        translateRustRegex(p, { caseInsensitive: false })
        return ""
      } catch (e) {
        return (e as Error).message
      }
    }
    expect(message("(")).toBe("unclosed group")
    expect(message("(?<=a)")).toBe("look-around, including look-ahead and look-behind, is not supported")
    expect(message("\\1")).toBe("backreferences are not supported")
    expect(message("a\\nb")).toBe('the literal "\\n" is not allowed in a regex')
  })

  test("what JavaScript cannot honour is flagged as unsupported, not guessed", () => {
    try {
      translateRustRegex("\\p{Age=3.0}", { caseInsensitive: false })
      throw new Error("accepted")
    } catch (e) {
      expect(e).toBeInstanceOf(RegexSyntaxError)
      expect((e as RegexSyntaxError).unsupported).toBe(true)
    }
  })
})
