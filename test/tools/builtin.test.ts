import { describe, expect, test } from "bun:test"
import { builtinToolEntries, loadBuiltinTool } from "../../src/tools/builtin.ts"

describe("the built-in tool catalogue", () => {
  test("each entry's names are exactly its tool's name, title and aliases", async () => {
    for (const entry of builtinToolEntries) {
      const tool = await entry.load()
      const expected = [tool.name, tool.title, ...(tool.aliases ?? [])].map((n) => n.toLowerCase()).sort()
      expect(entry.names.map((n) => n.toLowerCase()).sort()).toEqual(expected)
    }
  })
  test("no name reaches two tools", () => {
    const all = builtinToolEntries.flatMap((e) => [...new Set(e.names.map((n) => n.toLowerCase()))])
    expect(new Set(all).size).toBe(all.length)
  })
  test("one tool is found by any of its names, case-insensitively", async () => {
    expect((await loadBuiltinTool("LS"))?.name).toBe("list")
    expect((await loadBuiltinTool("search_code"))?.name).toBe("grep")
    expect(await loadBuiltinTool("nope")).toBeUndefined()
  })
})
