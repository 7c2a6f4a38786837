import { describe, expect, test } from "bun:test"
import { GlobMatcher, matchesPath } from "../../src/search/glob-pattern.ts"
import { callTool, project, type CallOptions } from "../support/harness.ts"

/**
 * Glob patterns match names across Unicode normal forms: "é" typed as one
 * code point (NFC) matches a name stored as "e" + a combining accent (NFD, as
 * macOS writes names) and the reverse, in glob, grep's include (both engines)
 * and list's ignore. ASCII names and patterns match as before.
 */

const nfc = (s: string) => s.normalize("NFC")
const nfd = (s: string) => s.normalize("NFD")
const BUILTIN: CallOptions = { configOverrides: { tools: { grep: { engine: "builtin" } } } }

describe("glob patterns across NFC and NFD", () => {
  test("the matcher: literals, wildcards, ? and classes, either form on either side", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["café.txt", "café.txt"],
      ["caf*", "café.txt"],
      ["caf?.txt", "café.txt"],
      ["caf[é].txt", "café.txt"],
      ["*é.txt", "café.txt"],
      ["**/résumé.md", "docs/résumé.md"],
      ["dé*/*.md", "dépôt/a.md"],
    ]
    for (const [pattern, name] of cases) {
      for (const p of [nfc(pattern), nfd(pattern)]) {
        const m = GlobMatcher.compile(p, { dot: false })
        for (const n of [nfc(name), nfd(name)]) expect([p, n, matchesPath(m, n)]).toEqual([p, n, true])
      }
    }
    // An accent is not its base letter in any form.
    const cafe = GlobMatcher.compile("cafe*", { dot: false })
    expect(matchesPath(cafe, nfd("café.txt"))).toBe(false)
    expect(matchesPath(cafe, nfc("café.txt"))).toBe(false)
    expect(matchesPath(GlobMatcher.compile("*.TXT", { dot: false, nocase: true }), nfd("é.txt"))).toBe(true)
  })

  test("glob, grep include (both engines) and list ignore find NFD names from NFC patterns and the reverse", async () => {
    const files = { [nfd("café.txt")]: "needle\n", [nfc("naïve.md")]: "needle\n", [`sub/${nfd("résumé.txt")}`]: "needle\n", "plain.txt": "needle\n" }
    const root = project(files, { marker: false })
    const glob = async (pattern: string) => ((await callTool(root, "glob", { pattern })).envelope.data.paths as Array<string>).map(nfc).sort()
    expect(await glob(nfc("café.txt"))).toEqual([nfc("café.txt")])
    expect(await glob(nfd("naïve.md"))).toEqual([nfc("naïve.md")])
    expect(await glob(nfc("**/résumé.*"))).toEqual([nfc("sub/résumé.txt")])
    expect(await glob("caf?.txt")).toEqual([nfc("café.txt")])
    expect(await glob("*.txt")).toEqual([nfc("café.txt"), "plain.txt"])
    for (const options of [{}, BUILTIN]) {
      for (const include of [nfc("*é*"), nfd("*é*")]) {
        const e = (await callTool(root, "grep", { pattern: "needle", include, output_mode: "files_with_matches" }, options)).envelope
        expect((e.data.files as Array<string>).map(nfc).sort()).toEqual([nfc("café.txt"), nfc("sub/résumé.txt")])
      }
    }
    const list = (await callTool(root, "list", { ignore: [nfc("café*"), nfd("naïve*")] })).envelope
    expect((list.data.entries as Array<{ name: string }>).map((e) => e.name).sort()).toEqual(["plain.txt", "sub"])
  })
})
