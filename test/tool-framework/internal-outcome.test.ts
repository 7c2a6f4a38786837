import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { callTool, project } from "../support/harness.ts"

/** A tool whose result breaks the pipeline after the tool ran: a hint whose argument throws when it is rendered. */
const brokenHintTool = defineTool({
  name: "broken_hint",
  title: "BrokenHint",
  description: "Test tool: a hint that cannot be rendered.",
  parameters: Schema.Struct({}),
  run: () =>
    Effect.succeed({
      status: "partial" as const,
      text: "half",
      data: {},
      hints: [
        {
          action: "Read",
          priority: "high" as const,
          args: {
            get path(): string {
              throw new Error("hint exploded")
            },
          },
        },
      ],
    }),
})

describe("a call whose pipeline itself fails", () => {
  test("still ends in an INTERNAL_ERROR envelope laid out as every other one, Retryable line and next step included", async () => {
    const { envelope } = await callTool(project(), "broken_hint", {}, { tools: [brokenHintTool] })
    expect(envelope.status).toBe("error")
    expect(envelope.error).toEqual({ code: "INTERNAL_ERROR", message: expect.stringContaining("hint exploded"), retryable: false })
    expect(envelope.text).toBe(
      `# broken_hint Error\n\nCode: INTERNAL_ERROR\nMessage: ${envelope.error!.message}\nRetryable: False\n\n` +
        "Next step: this is a fault in anvil, or in the plugin or server behind the tool, not in the call: go on another way, and tell the user.",
    )
  })
})
