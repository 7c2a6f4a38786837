import { Effect, Schema } from "effect"
import { activeCount, MAX_TASKS, normalizeTodos, renderTodos, TodoInput, type TodoProblem } from "../todo/todo-list.ts"
import { itemFaults, repairedList } from "../tool-framework/list-repair.ts"
import { PLACEHOLDER } from "../tool-framework/placeholder.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { saveTodos } from "../todo/todo-store.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { toolError } from "../protocol/tool-error.ts"
import description from "./todowrite.md" with { type: "text" }
import { SessionInfo } from "../tool-framework/session.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"

/** What TodoWrite says after every write. */
export const LIST_REMINDER =
  "Keep this list current as you work: set a task to in_progress before you start it (one at a time), " +
  "mark it completed as soon as it is done, add tasks you discover, and cancel those that no longer apply."

const pyBool = (b: boolean) => (b ? "True" : "False")

/**
 * The next step for a list refused: the same list mended (the tasks after the first in progress paused as pending,
 * a duplicate or empty id and an empty content asked for again), never a list of one stand-in task that would
 * replace the whole plan. A list too long has no such mending: the step is said in words.
 */
const mendedListStep = (
  input: ReadonlyArray<TodoInput>,
  problems: ReadonlyArray<TodoProblem>,
): { hints: ReadonlyArray<RetrievalHint> } | { nextStep: string } => {
  if (input.length > MAX_TASKS) return { nextStep: `write the list again with at most ${MAX_TASKS} tasks: merge related tasks or drop finished ones.` }
  const active = input.flatMap((t, i) => (t.status === "in_progress" ? [i] : []))
  const paused = active.slice(1).map((i) => ({ field: `todos.${i}.status` }))
  const faults = itemFaults("todos", [...problems, ...paused], input.length)
  return { hints: [hint("TodoWrite", "high", { todos: repairedList(input, faults, { content: PLACEHOLDER, status: "pending" }) })] }
}

/**
 * todowrite: replaces the session's todo list
 * with the one given (ids kept, missing ids generated) and persists it under
 * `.anvil/todos/<session>.json`. At most one task may be in progress.
 */
export const todowriteTool = defineTool({
  name: "todowrite",
  title: "TodoWrite",
  description,
  aliases: ["todo_write"],
  parameters: Schema.Struct({
    todos: Schema.Array(TodoInput).annotate({ description: "The whole list, in order." }),
  }),
  run: ({ todos: input }) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const normalized = normalizeTodos(input)
      if ("problems" in normalized) {
        return yield* toolError("INVALID_PARAM", `Invalid todo list: ${normalized.problems.map((p) => (p.field === "todos" ? p.message : `${p.field}: ${p.message}`)).join("; ")}`, {
          fieldErrors: normalized.problems,
          ...mendedListStep(input, normalized.problems),
        })
      }
      const { todos } = normalized
      const where = yield* saveTodos((yield* SessionInfo).id, todos)
      const active = activeCount(todos)
      const lines = [`Total todos: ${todos.length}`, `Active todos: ${active}`, `Persisted: ${pyBool(true)}`, `Todo path: ${where.display}`]
      return {
        data: { todos, count: todos.length, active_count: active, persisted: true, todo_path: where.display },
        text: [lines.join("\n"), renderTodos(todos), LIST_REMINDER].filter((p) => p !== "").join("\n\n"),
        stats: { count: todos.length, active_count: active },
      }
    })),
})
