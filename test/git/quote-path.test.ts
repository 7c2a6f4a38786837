import { describe, expect, test } from "bun:test"
import { decodePath, encodePath } from "../../src/workspace/path-bytes.ts"
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

describe("names that are not UTF-8 (path-bytes.ts)", () => {
  test("invalid bytes are kept as U+DC80–U+DCFF, come back exactly, and are quoted as git quotes the bytes", () => {
    const cases = [
      Buffer.from("caf\xe9.txt", "latin1"),
      Buffer.from([0x61, 0xc3]), // a sequence cut short at the end
      Buffer.from([0xe0, 0x80, 0x80]), // overlong
      Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
      Buffer.from([0xf4, 0x90, 0x80, 0x80]), // beyond U+10FFFF
      Buffer.concat([Buffer.from("ñ/😀/"), Buffer.from([0xff, 0xfe])]),
    ]
    for (const bytes of cases) expect(encodePath(decodePath(bytes)).equals(bytes)).toBe(true)
    expect(decodePath(Buffer.from("caf\xe9.txt", "latin1"))).toBe("caf\udce9.txt")
    expect(decodePath(Buffer.from("ñ😀"))).toBe("ñ😀")
    expect(quotePath(decodePath(Buffer.from("caf\xe9 x.txt", "latin1")))).toBe('"caf\\351 x.txt"')
    expect(quotePath(decodePath(Buffer.concat([Buffer.from("ñ"), Buffer.from([0xff])])))).toBe('"\\303\\261\\377"')
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
