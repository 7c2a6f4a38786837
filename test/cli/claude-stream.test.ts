import { describe, expect, test } from "bun:test"
import { turnWithoutSteps } from "../../src/agent/events.ts"
import { makeClaudeStream } from "../../src/cli/claude-stream.ts"
import { assistantProblems, initProblems, resultProblems } from "../support/claude-shapes.ts"

// The Claude-shaped messages themselves, in process: what the SDK's types require of each field.
const capture = () => {
  const out: Array<Record<string, any>> = []
  const stream = makeClaudeStream({ sessionId: "s1", model: "openai/m", contextWindow: 1000, write: (m) => void out.push(m) })
  return { out, stream }
}

describe("Claude-shaped messages", () => {
  test("init carries claude_code_version, agents and the permission mode it is given", () => {
    const { out, stream } = capture()
    stream.init({ cwd: "/p", model: "openai/m", tools: ["Read"], permissionMode: "acceptEdits", version: "9.9.9", profile: "code", engine: "native", resumed: false })
    expect(initProblems(out[0]!)).toEqual([])
    expect(out[0]).toMatchObject({ claude_code_version: "9.9.9", agents: [], permissionMode: "acceptEdits" })
  })
  test("a tool call whose arguments are not a JSON object still has an object input; the text is kept as raw_input", () => {
    const { out, stream } = capture()
    const usage = { inputTokens: 1, outputTokens: 1 }
    stream.event({
      type: "assistant",
      text: "",
      usage,
      tool_calls: [
        { id: "c1", name: "read", arguments: "{bad json" },
        { id: "c2", name: "read", arguments: "[1,2]" },
        { id: "c3", name: "read", arguments: '{"path":"a"}' },
      ],
    })
    expect(assistantProblems(out[0]!)).toEqual([])
    expect(out[0]!.message.content).toEqual([
      { type: "tool_use", id: "c1", name: "read", input: {}, raw_input: "{bad json" },
      { type: "tool_use", id: "c2", name: "read", input: {}, raw_input: "[1,2]" },
      { type: "tool_use", id: "c3", name: "read", input: { path: "a" } },
    ])
  })
  test("the result's stop_reason is end_turn when the model ended with an answer, even if a denial failed the turn", () => {
    const { stream } = capture()
    const answered = (reason: Parameters<typeof turnWithoutSteps>[1], answer: string) => ({ ...turnWithoutSteps("error", reason), answer })
    expect(stream.result({ ...answered("completed", "done"), status: "success" }).stop_reason).toBe("end_turn")
    const denied = stream.result(answered("permission_denied", "could not"))
    expect(resultProblems(denied)).toEqual([])
    expect(denied.stop_reason).toBe("end_turn")
    expect(stream.result(answered("max_steps", "")).stop_reason).toBeNull()
    expect(stream.result(answered("model_error", "partial")).stop_reason).toBeNull()
  })
})
