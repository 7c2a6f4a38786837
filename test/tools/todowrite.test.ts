import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { todowriteTool, LIST_REMINDER } from "../../src/tools/todowrite.ts"
import { callTool, project } from "../support/harness.ts"

const plan = [
  { id: "1", content: "Read the failing test", status: "completed", priority: "high" },
  { id: "2", content: "Fix the parser", status: "in_progress", priority: "high" },
  { id: "3", content: "Run the whole suite", status: "pending" },
  { id: "4", content: "Benchmark", status: "cancelled", priority: "low" },
]

describe("todowrite", () => {
  test("text layout: counts, persisted, path, the list and the reminder", async () => {
    const root = project()
    const { envelope, meta } = await callTool(root, "todowrite", { todos: plan })
    expect(envelope.status).toBe("success")
    expect(envelope.text).toBe(
      [
        "# TodoWrite",
        "",
        "Total todos: 4",
        "Active todos: 2",
        "Persisted: True",
        "Todo path: .anvil/todos/cli.json",
        "",
        "#1 [completed] (high) Read the failing test",
        "#2 [in_progress] (high) Fix the parser",
        "#3 [pending] (medium) Run the whole suite",
        "#4 [cancelled] (low) Benchmark",
        "",
        LIST_REMINDER,
      ].join("\n"),
    )
    expect(envelope.data).toMatchObject({ count: 4, active_count: 2, persisted: true, todo_path: ".anvil/todos/cli.json" })
    expect((envelope.data.todos as Array<{ priority: string }>)[2]!.priority).toBe("medium")
    expect(meta.tool_name).toBe("TodoWrite")
    expect(todowriteTool.permission ?? "allow").toBe("allow")
  })

  test("the list is persisted per session under .anvil/todos, and .anvil stays out of git", async () => {
    const root = project()
    await callTool(root, "todowrite", { todos: plan }, { session: { id: "chat-42", interactive: true } })
    const file = join(root, ".anvil/todos/chat-42.json")
    const stored = JSON.parse(readFileSync(file, "utf8"))
    expect(stored.session).toBe("chat-42")
    expect(stored.todos.map((t: { id: string }) => t.id)).toEqual(["1", "2", "3", "4"])
    expect(readFileSync(join(root, ".anvil/.gitignore"), "utf8")).toBe("*\n")
    expect(existsSync(join(root, ".anvil/todos/cli.json"))).toBe(false)
  })

  test("a write replaces the whole list", async () => {
    const root = project()
    await callTool(root, "todowrite", { todos: plan })
    const { envelope } = await callTool(root, "todowrite", { todos: [{ id: "2", content: "Fix the parser", status: "completed" }] })
    expect(envelope.data.count).toBe(1)
    const stored = JSON.parse(readFileSync(join(root, ".anvil/todos/cli.json"), "utf8"))
    expect(stored.todos).toEqual([{ id: "2", content: "Fix the parser", status: "completed", priority: "medium" }])
  })

  test("missing ids are generated (smallest unused numbers); numeric ids become strings", async () => {
    const root = project()
    const { envelope } = await callTool(root, "todowrite", {
      todos: [
        { content: "a", status: "pending" },
        { id: 1, content: "b", status: "pending" },
        { content: "c", status: "pending" },
      ],
    })
    expect((envelope.data.todos as Array<{ id: string }>).map((t) => t.id)).toEqual(["2", "1", "3"])
  })

  test("more than one in_progress is INVALID_PARAM and nothing is written", async () => {
    const root = project()
    const { envelope } = await callTool(root, "todowrite", {
      todos: [
        { content: "a", status: "in_progress" },
        { content: "b", status: "in_progress" },
      ],
    })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("todos")
    // Tasks are counted from 1 as a person counts them; the field paths beside them from 0.
    expect(envelope.error?.message).toContain("at most one task may be in_progress; 2 are: tasks 1 and 2 (todos.0, todos.1).")
    expect(existsSync(join(root, ".anvil/todos/cli.json"))).toBe(false)
  })

  test("duplicate ids, empty content and unknown statuses are INVALID_PARAM naming the field", async () => {
    const root = project()
    const dup = await callTool(root, "todowrite", {
      todos: [
        { id: "x", content: "a", status: "pending" },
        { id: "x", content: "", status: "pending" },
      ],
    })
    expect(dup.envelope.error?.field_errors?.map((f) => f.field)).toEqual(["todos.1.id", "todos.1.content"])
    // The message names which task, as the field errors do.
    expect(dup.envelope.error?.message).toBe("Invalid todo list: todos.1.id: duplicate id 'x': task 1 (todos.0) has it too; todos.1.content: the task has no content")
    const bad = await callTool(root, "todowrite", { todos: [{ content: "a", status: "done" }] })
    expect(bad.envelope.error?.code).toBe("INVALID_PARAM")
    expect(bad.envelope.error?.field_errors?.[0]?.field).toBe("todos.0.status")
  })
})
