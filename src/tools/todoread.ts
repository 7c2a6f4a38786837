import { Effect, Schema } from "effect"
import { activeCount, renderTodos } from "../todo/todo-list.ts"
import { loadTodos } from "../todo/todo-store.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./todoread.md" with { type: "text" }
import { SessionInfo } from "../tool-framework/session.ts"
import { todoToolError } from "./todo-errors.ts"

const pyBool = (b: boolean) => (b ? "True" : "False")

/** todoread: the current session's todo list, as TodoWrite last stored it. */
export const todoreadTool = defineTool({
  name: "todoread",
  title: "TodoRead",
  description,
  aliases: ["todo_read"],
  readOnly: true,
  // No parameters; a record of nothing (rather than an empty struct) is also
  // what the model's JSON Schema needs: {"type":"object","additionalProperties":false}.
  parameters: Schema.Record(Schema.String, Schema.Never),
  run: () =>
    Effect.gen(function* () {
      const { todos, exists, display } = yield* loadTodos((yield* SessionInfo).id).pipe(Effect.catchTag("TodoFileDamaged", (e) => Effect.fail(todoToolError(e))))
      const active = activeCount(todos)
      const lines = [`Total todos: ${todos.length}`, `Active todos: ${active}`, `Persisted: ${pyBool(exists)}`, `Todo path: ${display}`]
      const body = todos.length > 0 ? renderTodos(todos) : "No todos yet in this session. Use TodoWrite to plan work of three or more steps."
      return {
        data: { todos, count: todos.length, active_count: active, persisted: exists, todo_path: display },
        text: `${lines.join("\n")}\n\n${body}`,
        stats: { count: todos.length, active_count: active },
      }
    }),
})
