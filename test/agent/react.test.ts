import { describe, expect, test } from "bun:test"
import { parseActionInput, parseReact, reactInstructions } from "../../src/agent/react.ts"

describe("ReAct parser", () => {
  test("Thought + Action with bracketed JSON", () => {
    expect(parseReact('Thought: look for python files\nAction: Glob[{"pattern": "*.py", "path": "core"}]')).toEqual({
      kind: "action",
      thought: "look for python files",
      tool: "Glob",
      input: { pattern: "*.py", path: "core" },
      inputText: '{"pattern": "*.py", "path": "core"}',
    })
  })

  test("Action + Action Input, markdown bold labels, fenced JSON, full-width colon", () => {
    const step = parseReact('**Thought**: read it\n**Action**: read\n**Action Input**：\n```json\n{"path": "a.py"}\n```')
    expect(step).toMatchObject({ kind: "action", tool: "read", input: { path: "a.py" }, thought: "read it" })
  })

  test("Final Answer, Finish[...], and plain text are final answers", () => {
    expect(parseReact("Thought: done\nFinal Answer: 42\nmore lines")).toEqual({ kind: "final", thought: "done", answer: "42\nmore lines" })
    expect(parseReact("Thought: ok\nAction: Finish[the answer]")).toMatchObject({ kind: "final", answer: "the answer" })
    expect(parseReact("Just an answer.")).toEqual({ kind: "final", thought: "", answer: "Just an answer." })
  })

  test("a self-written Observation and anything after it is ignored; the first of Action / Final Answer wins", () => {
    const step = parseReact('Thought: t\nAction: calculator[{"expression": "1+1"}]\nObservation: 2\nThought: so\nFinal Answer: 2')
    expect(step).toMatchObject({ kind: "action", tool: "calculator", input: { expression: "1+1" } })
  })

  test("malformed JSON input stays text (the pipeline reports INVALID_PARAM); bare strings pass through", () => {
    expect(parseActionInput('{"path": ')).toBe('{"path":')
    expect(parseActionInput("2+3")).toBe("2+3")
    expect(parseReact("Action: calculator[2+3]")).toMatchObject({ kind: "action", tool: "calculator", input: "2+3" })
  })

  test("the instructions list every tool with its schema and the reply format", () => {
    const text = reactInstructions([{ name: "read", description: "Reads a file.\n\nLong details.", parameters: { type: "object" } }])
    expect(text).toContain("### read\nReads a file.\nParameters (JSON Schema): {\"type\":\"object\"}")
    expect(text).not.toContain("Long details.")
    expect(text).toContain("Final Answer:")
  })
})
