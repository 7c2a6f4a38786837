import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { toolError } from "../../src/protocol/tool-error.ts"

/** Prints `lines` lines of `width` characters: drives the truncation layer. */
export const echoLinesTool = defineTool({
  name: "echo_lines",
  title: "EchoLines",
  description: "Test tool: prints numbered lines.",
  parameters: Schema.Struct({
    lines: Schema.Int,
    width: Schema.optionalKey(Schema.Int),
    fail: Schema.optionalKey(Schema.Boolean),
    skip: Schema.optionalKey(Schema.Boolean),
  }),
  parameterAliases: { count: "lines" },
  run: ({ lines, width = 10, fail, skip }) => {
    const body = Array.from({ length: lines }, (_, i) => `L${String(i + 1).padStart(width - 1, "0")}`).join("\n")
    if (fail) return Effect.fail(toolError("EXECUTION_ERROR", `failed after printing:\n${body}`))
    return Effect.succeed({ data: { lines }, text: body, ...(skip ? { context: { truncation_skip: true } } : {}) })
  },
})

/** A tool whose run throws: must become INTERNAL_ERROR, not a crash. */
export const defectTool = defineTool({
  name: "boom",
  title: "Boom",
  description: "Test tool: dies.",
  parameters: Schema.Struct({}),
  run: () => Effect.sync(() => {
    throw new Error("kaboom")
  }),
})

/** A tool that never finishes unless interrupted. */
export const hangTool = defineTool({
  name: "hang",
  title: "Hang",
  description: "Test tool: never returns.",
  parameters: Schema.Struct({}),
  run: () => Effect.never,
})

/** A tool that asks for permission by default. */
export const askTool = defineTool({
  name: "asker",
  title: "Asker",
  description: "Test tool: needs approval.",
  permission: "ask",
  parameters: Schema.Struct({}),
  run: () => Effect.succeed({ data: { ran: true }, text: "ran" }),
})

/** A tool whose data JSON cannot hold (a BigInt): the command must still print an envelope. */
export const bigintTool = defineTool({
  name: "bigint_data",
  title: "BigintData",
  description: "Test tool: returns a BigInt in its data.",
  parameters: Schema.Struct({}),
  run: () => Effect.succeed({ data: { big: 10n }, text: "ten" }),
})
