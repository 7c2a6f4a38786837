import { describe, expect, test } from "bun:test"
import { quotePath } from "../../src/git/quote-path.ts"
import { parseGitConfig } from "../../src/workspace/git-config-file.ts"

describe("quotePath (git's quote_c_style)", () => {
  test("plain names stay bare; quotes, backslashes, control and non-ASCII bytes are escaped", () => {
    expect(quotePath("src/a.txt")).toBe("src/a.txt")
    expect(quotePath("sp ace.txt")).toBe("sp ace.txt")
    expect(quotePath("sp ace.txt", { quoteSpace: true })).toBe('"sp ace.txt"')
    expect(quotePath('q"uote')).toBe('"q\\"uote"')
    expect(quotePath("back\\slash")).toBe('"back\\\\slash"')
    expect(quotePath("ta\tb\nc")).toBe('"ta\\tb\\nc"')
    expect(quotePath("ñew")).toBe('"\\303\\261ew"')
    expect(quotePath("\x01")).toBe('"\\001"')
  })
})

describe("parseGitConfig", () => {
  test("sections, subsections, comments, quotes, escapes, bare booleans; later values win", () => {
    const config = parseGitConfig(
      [
        "# comment",
        "[user]",
        '\tname = "Ada Lovelace"  ; trailing comment',
        "\temail = ada@example.test # another",
        "[core]",
        "\thooksPath = .githooks",
        "\tbare",
        '[branch "feature/x"]',
        "\tremote = origin",
        "[user]",
        '\tname = Ada "The Countess" Byron',
        '[alias]\n\tlg = "log --oneline \\"x\\""',
      ].join("\n"),
    )
    expect(config.get("user.name")).toBe("Ada The Countess Byron")
    expect(config.get("user.email")).toBe("ada@example.test")
    expect(config.get("core.hookspath")).toBe(".githooks")
    expect(config.get("core.bare")).toBe("true")
    expect(config.get("branch.feature/x.remote")).toBe("origin")
    expect(config.get("alias.lg")).toBe('log --oneline "x"')
  })
})
