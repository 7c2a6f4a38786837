import { hint } from "../protocol/hint.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import type { TodoFileDamaged } from "../todo/todo-error.ts"

/** The todo domain's errors as envelope errors (one place for todoread and todowrite). */
export const todoToolError = (e: TodoFileDamaged): ToolError =>
  toolError("EXECUTION_ERROR", `The todo file ${e.display} is damaged (not a todo list). Write the whole list again with TodoWrite.`, {
    // The list as a list (a string here would lead to a string sent): each task with the fields it needs.
    hints: [hint("TodoWrite", "high", { todos: [{ content: "<task 1>", status: "<status>" }, { content: "<task 2>", status: "<status>" }] })],
  })

