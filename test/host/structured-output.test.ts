import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeStructuredOutput } from "../../src/host/structured-output.ts"

/** The tool's answer: its failure's message, or "ok". */
const run = (made: Exclude<ReturnType<typeof makeStructuredOutput>, string>, params: Record<string, unknown>) =>
  Effect.runPromise(
    made.tool.run(params, { callId: "c", rawParams: params }).pipe(
      Effect.map(() => "ok"),
      Effect.catch((e) => Effect.succeed(e.message)),
    ),
  )

describe("structured output's tool", () => {
  test("a schema that is not an object is wrapped as {value}; a mismatch names the path; reset forgets the answer", async () => {
    const made = makeStructuredOutput({ type: "array", items: { type: "string" } })
    if (typeof made === "string") throw new Error(made)
    expect(made.tool.jsonSchema).toEqual({ type: "object", properties: { value: { type: "array", items: { type: "string" } } }, required: ["value"] })
    expect(await run(made, { value: ["a", 2] })).toContain("does not match the schema: /1 must be string")
    expect(made.value()).toBeUndefined()
    expect(await run(made, { value: ["a", "b"] })).toBe("ok")
    expect(made.value()).toEqual({ data: ["a", "b"] })
    made.reset()
    expect(made.value()).toBeUndefined()
  })

  test("a schema Ajv cannot compile is an error message, not a crash", () => {
    expect(makeStructuredOutput({ type: "object", properties: { a: { type: "no-such-type" } } })).toBeString()
  })
})
