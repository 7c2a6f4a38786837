import { describe, expect, test } from "bun:test"
import { makeConfig } from "../../src/config/config.ts"
import { hiddenPaths } from "../../src/permission/hidden-paths.ts"
import { levelFor, toolRules } from "../../src/permission/rules.ts"

const read = (rules: unknown, tool = "grep") => hiddenPaths(makeConfig({ permission: { read: rules } }, {}), tool)!
const path = (value: string) => ({ kind: "path" as const, values: [value] })

describe("a deny rule on paths covers a folder's contents", () => {
  test("deny rules match what lies in a folder they name; allow rules only what they name", () => {
    const rules = toolRules({ edit: { secret: "deny", "config/*": "deny", src: "allow" } }, "edit")
    expect(levelFor(rules, "ask", path("secret/a.txt"))).toBe("deny")
    expect(levelFor(rules, "ask", path("lib/secret/deep/b.txt"))).toBe("deny")
    expect(levelFor(rules, "ask", path("config/prod/key.pem"))).toBe("deny")
    expect(levelFor(rules, "ask", path("secrets.txt"))).toBe("ask")
    expect(levelFor(rules, "ask", path("src"))).toBe("allow")
    expect(levelFor(rules, "ask", path("src/a.ts"))).toBe("ask")
  })
})

describe("what the search tools leave out", () => {
  test("files and folders read denies, and the tool's own deny patterns; nothing without a deny rule", () => {
    const hidden = read({ "secret/**": "deny", ".env": "deny", "*.pem": "ask" })
    expect(hidden.hides("secret/a.txt", false)).toBe(true)
    expect(hidden.hides("secret", true)).toBe(true)
    expect(hidden.hides("secret/deep", true)).toBe(true)
    expect(hidden.hides("a/.env", false)).toBe(true)
    expect(hidden.hides("key.pem", false)).toBe(false)
    expect(hidden.hides("secretive", true)).toBe(false)
    // `secret/**` is anchored at the root, as read judges it: a nested folder of that name is neither hidden nor refused.
    expect(levelFor(toolRules({ read: { "secret/**": "deny" } }, "read"), "allow", path("a/secret/x.txt"))).toBe("allow")
    expect(hidden.hides("a/secret", true)).toBe(false)
    expect(hidden.hidingRule("a/secret", true)).toBeUndefined()
    expect(read({ "**/secret/": "deny" }).hides("a/secret", true)).toBe(true)
    const own = hiddenPaths(makeConfig({ permission: { glob: { "dist/": "deny" } } }, {}), "glob")!
    expect(own.hides("dist", true)).toBe(true)
    expect(own.hides("dist/a.js", false)).toBe(true)
    expect(hiddenPaths(makeConfig({ permission: { glob: { "dist/": "deny" } } }, {}), "grep")).toBeUndefined()
    expect(hiddenPaths(makeConfig({ permission: { read: { "*.pem": "ask" } } }, {}), "grep")).toBeUndefined()
  })

  test("a whole-tool deny hides every folder; with exceptions, files are judged one by one", () => {
    expect(read("deny").hides(".", true)).toBe(true)
    const some = read({ "*": "deny", "src/**": "allow" })
    expect(some.hides(".", true)).toBe(false)
    expect(some.hides("src/a.ts", false)).toBe(false)
    expect(some.hides("lib/a.ts", false)).toBe(true)
    expect(some.rgExcludes(".")).toEqual([])
    // A folder no exception names or reaches into holds nothing to show: hidden, and a search rooted there refused.
    expect([some.hides("src", true), some.hides("src/deep", true), some.hides("lib", true), some.hides("lib/src", true)]).toEqual([false, false, true, true])
    expect(some.hidingRule("lib", true)?.rule).toBe(`"read": {"*": "deny"}`)
    const names = read({ "*": "deny", "docs/*.md": "allow", "*.txt": "ask" })
    expect([names.hides("docs", true), names.hides("docs/sub", true), names.hides("lib/sub", true)]).toEqual([false, false, false])
    const one = read({ "*": "deny", "docs/*.md": "allow" })
    expect([one.hides("docs", true), one.hides("docs/sub", true), one.hides("lib", true), one.hides(".", true)]).toEqual([false, true, true, false])
  })

  test("ripgrep exclusions: anchored to the searched folder, rebased into a subfolder, escaped, none that could leave out more", () => {
    const hidden = read({ "secret/**": "deny", ".env": "deny", "src/keys/": "deny", "a[1]/*.txt": "deny", "*/x": "deny" })
    expect(hidden.rgExcludes(".")).toEqual(["!/secret/**", "!**/.env", "!/src/keys/**", "!/a\\[1\\]/*.txt", "!/*/x"])
    expect(hidden.rgExcludes("src")).toEqual(["!**/.env", "!/keys/**"])
    expect(hidden.rgExcludes("lib")).toEqual(["!**/.env"])
    // Composed and decomposed names are one name.
    expect(read({ "./caf\u00e9/": "deny" }).hides("cafe\u0301", true)).toBe(true)
    expect(read({ "./caf\u00e9/": "deny" }).hidingRule("cafe\u0301", true)?.rule).toBe(`"read": {"./caf\u00e9/": "deny"}`)
    // `./` anchors at the root: one file there, none in a subfolder's search.
    const anchored = read({ "./.env": "deny", "./keys/": "deny" })
    expect(anchored.rgExcludes(".")).toEqual(["!/.env", "!/keys/**"])
    expect(anchored.rgExcludes("src")).toEqual([])
    expect([anchored.hides(".env", false), anchored.hides("src/.env", false), anchored.hides("keys", true), anchored.hides("src/keys", true)]).toEqual([true, false, true, false])
  })

  test("the rule a search rooted in a hidden place meets, for its refusal", () => {
    const hidden = read({ "secret/**": "deny" })
    expect(hidden.hidingRule("secret", true)?.rule).toBe(`"read": {"secret/**": "deny"}`)
    expect(hidden.hidingRule("secret/a.txt", false)?.rule).toBe(`"read": {"secret/**": "deny"}`)
    expect(hidden.hidingRule("src", true)).toBeUndefined()
    expect(read("deny").hidingRule(".", true)?.rule).toBe(`"read": "deny"`)
  })
})
