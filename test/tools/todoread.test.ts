import { describe, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { todoreadTool } from "../../src/tools/todoread.ts"
import { callTool, project } from "../support/harness.ts"

describe("todoread", () => {
  test("before any write: an empty list, not persisted, with advice", async () => {
    const { envelope } = await callTool(project(), "todoread", {})
    expect(envelope.status).toBe("success")
    expect(envelope.data).toEqual({ todos: [], count: 0, active_count: 0, persisted: false, todo_path: ".anvil/todos/cli.json" })
    expect(envelope.text).toContain("No todos yet")
    expect(todoreadTool.readOnly).toBe(true)
  })

  test("returns what todowrite stored for the same session, and only for it", async () => {
    const root = project()
    const session = { id: "s1", interactive: true }
    await callTool(
      root,
      "todowrite",
      {
        todos: [
          { content: "plan", status: "completed" },
          { content: "build", status: "in_progress", priority: "high" },
          { content: "ship", status: "pending", priority: "low" },
        ],
      },
      { session },
    )
    const { envelope } = await callTool(root, "todoread", {}, { session })
    expect(envelope.data).toMatchObject({ count: 3, active_count: 2, persisted: true, todo_path: ".anvil/todos/s1.json" })
    expect(envelope.data.todos).toEqual([
      { id: "1", content: "plan", status: "completed", priority: "medium" },
      { id: "2", content: "build", status: "in_progress", priority: "high" },
      { id: "3", content: "ship", status: "pending", priority: "low" },
    ])
    expect(envelope.text).toContain("#2 [in_progress] (high) build")
    const other = await callTool(root, "todoread", {}, { session: { id: "s2", interactive: true } })
    expect(other.envelope.data.count).toBe(0)
  })

  test("a damaged todo file is EXECUTION_ERROR telling how to recover", async () => {
    const root = project()
    mkdirSync(join(root, ".anvil/todos"), { recursive: true })
    writeFileSync(join(root, ".anvil/todos/cli.json"), "{ not json")
    const { envelope } = await callTool(root, "todoread", {})
    expect(envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(envelope.error?.message).toContain("Write the whole list again with TodoWrite")
    // The list asked for is shown as a list, not as a string.
    expect(envelope.text).toContain('* TodoWrite(todos=[{"content":"<task 1>","status":"<status>"},{"content":"<task 2>","status":"<status>"}])')
  })


  test("todoread takes no parameters: its schema says so and an unknown one is INVALID_PARAM", async () => {
    const { parameterJsonSchema } = await import("../../src/tool-framework/json-schema.ts")
    // `properties` is there even when empty: OpenAI refuses an object schema without it.
    expect(parameterJsonSchema(todoreadTool)).toEqual({ type: "object", properties: {}, additionalProperties: false })
    const { envelope } = await callTool(project(), "todoread", { path: "x" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("path")
  })
})
