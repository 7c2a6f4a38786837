import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { defineTool, type Tool } from "../../src/tool-framework/definition.ts"
import { catalogueLines, familyOf } from "../../src/tools/tool-catalogue.ts"

const tool = (name: string, description: string): Tool =>
  defineTool({ name, title: name, description, parameters: Schema.Struct({}), run: () => Effect.succeed({ data: {}, text: "" }) })

describe("the catalogue of on-demand tools", () => {
  test("a family is the MCP server's prefix (underscores in the server name included) or the word before the first underscore", () => {
    expect(familyOf("mcp__my_docs__fetch_page")).toBe("mcp__my_docs__")
    expect(familyOf("git_status")).toBe("git_")
    expect(familyOf("calculator")).toBeUndefined()
    expect(familyOf("_x")).toBeUndefined()
    expect(familyOf("x_")).toBeUndefined()
  })

  test("tools of one family share a line with the prefix written once; a tool alone keeps its own line with its first sentence", () => {
    const lines = catalogueLines([
      tool("mcp__docs__search", "Searches the docs. Returns pages."),
      tool("calculator", "Evaluates arithmetic exactly. More."),
      tool("mcp__docs__fetch_page", "Fetches one page by id."),
      tool("git_status", "git status. Branch and changes."),
    ])
    expect(lines).toEqual([
      "- mcp__docs__*: search: Searches the docs; fetch_page: Fetches one page by id",
      "- calculator: Evaluates arithmetic exactly.",
      "- git_status: git status.",
    ])
  })

  test("a parenthesis closing every summary of a family is said once, after the family; one that differs stays with its tool", () => {
    const same = catalogueLines([tool("lsp_hover", "A symbol's type (language server). More."), tool("lsp_definition", "Where it is defined (language server).")])
    expect(same).toEqual(["- lsp_* (language server): hover: A symbol's type; definition: Where it is defined"])
    const differ = catalogueLines([tool("x_a", "One (first)."), tool("x_b", "Two (second).")])
    expect(differ).toEqual(["- x_*: a: One (first); b: Two (second)"])
  })
})
