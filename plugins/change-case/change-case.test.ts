import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { withExamplePlugin } from "../../test/support/example-plugin.ts"

setDefaultTimeout(120_000)

describe("change-case example plugin (a tool with an npm dependency)", () => {
  test("loads in the binary with its dependency bundled; converts; a bad call is an error envelope", async () => {
    const { anvil, tool } = withExamplePlugin("change-case")
    const listed = JSON.parse((await anvil(["plugins", "--json"])).stdout)
    expect(listed.plugins).toMatchObject([{ name: "change-case", status: "loaded", tools: ["change_case"] }])
    const r = await tool("change_case", { words: ["hello world", "XMLHttpRequest"], to: "pascal" })
    expect(r.envelope).toMatchObject({ status: "success", data: { to: "pascal", converted: ["HelloWorld", "XmlHttpRequest"] } })
    expect((await tool("change_case", { words: [], to: "snake" })).envelope.error).toMatchObject({ code: "INVALID_PARAM" })
    expect((await tool("change_case", { words: ["a"], to: "shout" })).envelope.error).toMatchObject({ code: "INVALID_PARAM" })
  })
})
