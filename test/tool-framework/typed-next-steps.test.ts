import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { builtinTools, callTool, project } from "../support/harness.ts"

/**
 * A next step's arguments have the types the tool's schema expects: a number asked for again is a number (the one
 * the call gave as text when it fits, else the smallest the schema allows), a boolean a boolean, one of a set of
 * words one of those words. A model copies a hint's types; "<correct_value>" where a number goes is refused again.
 */

const firstHint = async (name: string, params: unknown, tools = builtinTools) => {
  const outcome = await callTool(project({ "f.txt": "a\n" }), name, params, { tools })
  const hints = outcome.meta.retrieval_hints ?? []
  const text = outcome.envelope.text
  return { code: outcome.envelope.error?.code, args: hints[0]?.args, step: text.slice(text.indexOf("Recommended next step")).split("\n")[1] }
}

describe("next-step arguments are typed as the schema expects", () => {
  test("numbers: a number given as text is given back as that number; otherwise the smallest allowed value", async () => {
    expect(await firstHint("read", { path: "f.txt", offset: "200" })).toEqual({ code: "INVALID_PARAM", args: { offset: 200 }, step: "* Read(offset=200)" })
    expect(await firstHint("read", { path: "f.txt", offset: "x" })).toMatchObject({ args: { offset: 0 }, step: "* Read(offset=0)" })
    // limit must be over 0: 0 is refused, so 1 is named; "0" as text does not fit either.
    expect(await firstHint("read", { path: "f.txt", limit: 0 })).toMatchObject({ args: { limit: 1 } })
    expect(await firstHint("read", { path: "f.txt", limit: "0" })).toMatchObject({ args: { limit: 1 } })
    // An integer is not given back as a fraction.
    expect(await firstHint("read", { path: "f.txt", offset: "2.5" })).toMatchObject({ args: { offset: 0 } })
    expect(await firstHint("grep", { pattern: "a", context: "3" })).toMatchObject({ args: { context: 3 }, step: "* Grep(context=3)" })
    for (const h of [await firstHint("grep", { pattern: "a", max_matches: "lots" }), await firstHint("bash", { command: "true", timeout: "soon" })]) {
      expect(typeof Object.values(h.args ?? {})[0]).toBe("number")
    }
  })

  test("booleans and sets of words", async () => {
    expect(await firstHint("grep", { pattern: "a", case_sensitive: "false" })).toMatchObject({ args: { case_sensitive: false }, step: "* Grep(case_sensitive=false)" })
    expect(await firstHint("edit", { path: "f.txt", old_string: "a", new_string: "b", replace_all: "yes" })).toMatchObject({ args: { replace_all: true } })
    expect(await firstHint("grep", { pattern: "a", output_mode: "COUNT " })).toMatchObject({ args: { output_mode: "count" } })
    expect(await firstHint("grep", { pattern: "a", output_mode: "lines" })).toMatchObject({ args: { output_mode: "content" } })
  })

  test("a tool with its own JSON Schema (an MCP server's): integer, number, boolean and enum bounds are read from it", async () => {
    const paged = defineTool({
      name: "mcp__docs__page",
      title: "mcp__docs__page",
      description: "Pages.",
      parameters: Schema.Struct({ page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), ratio: Schema.Number, deep: Schema.Boolean, mode: Schema.Literals(["a", "b"]) }),
      jsonSchema: {
        type: "object",
        properties: { page: { type: "integer", minimum: 1 }, ratio: { type: "number", exclusiveMinimum: 0, maximum: 0.5 }, deep: { type: "boolean" }, mode: { enum: ["a", "b"] } },
        required: ["page", "ratio", "deep", "mode"],
      },
      run: () => Effect.succeed({ data: {}, text: "" }),
    })
    const h = await firstHint("mcp__docs__page", { page: "seven", ratio: "much", deep: "no", mode: "B" }, [...builtinTools, paged])
    expect(h).toMatchObject({ code: "INVALID_PARAM", args: { page: 1, ratio: 0.5, deep: true, mode: "b" } })
    expect((await firstHint("mcp__docs__page", { page: "7", ratio: 0.25, deep: true, mode: "a" }, [...builtinTools, paged])).args).toEqual({ page: 7 })
  })
})
