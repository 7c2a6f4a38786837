import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { withExamplePlugin } from "../../test/support/example-plugin.ts"

setDefaultTimeout(120_000)

describe("text-stats example plugin (Effect services)", () => {
  test("counts through its own service and anvil's Files; the sandbox's errors keep their codes", async () => {
    const { tool } = withExamplePlugin("text-stats", { "a.md": "# TODO list\nFIXME one\n", "b.txt": "" })
    const r = await tool("text_stats", { paths: ["a.md", "b.txt"] })
    expect(r.envelope.data).toEqual({
      files: [
        { path: "a.md", lines: 2, words: 5, markers: 2 },
        { path: "b.txt", lines: 0, words: 0, markers: 0 },
      ],
      total: { lines: 2, words: 5, markers: 2 },
    })
    expect((await tool("text_stats", { paths: ["missing.md"] })).envelope.error).toMatchObject({ code: "NOT_FOUND" })
    expect((await tool("text_stats", { paths: ["../../etc/passwd"] })).envelope.error).toMatchObject({ code: "ACCESS_DENIED" })
  })
})
