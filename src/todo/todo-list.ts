import { Schema } from "effect"
import { isRecord } from "../protocol/is-record.ts"

/** The states of a task. */
export const TASK_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const
export type TodoStatus = (typeof TASK_STATUSES)[number]

export const TASK_PRIORITIES = ["high", "medium", "low"] as const
export type TodoPriority = (typeof TASK_PRIORITIES)[number]

/** One task as stored and returned. */
export interface Todo {
  readonly id: string
  readonly content: string
  readonly status: TodoStatus
  readonly priority: TodoPriority
}

/** One task as the model writes it: the id is optional (generated when missing), priority defaults to medium. */
export const TodoInput = Schema.Struct({
  id: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Int]).annotate({ description: "Kept when updating; made when missing." }),
  ),
  content: Schema.String.annotate({ description: "Short imperative sentence." }),
  status: Schema.Literals(TASK_STATUSES).annotate({ description: "At most one in_progress." }),
  priority: Schema.optionalKey(Schema.Literals(TASK_PRIORITIES).annotate({ description: "Default medium." })),
})
export type TodoInput = typeof TodoInput.Type

/**
 * Names tasks by their place counted from 1, as a person counts them, with
 * the field path (counted from 0, as in field_errors) beside it:
 * `tasks 1 and 2 (todos.0, todos.1)`.
 */
const taskPlaces = (indexes: ReadonlyArray<number>): string => {
  const numbers = indexes.map((i) => String(i + 1))
  const list = numbers.length === 1 ? `task ${numbers[0]}` : `tasks ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`
  return `${list} (${indexes.map((i) => `todos.${i}`).join(", ")})`
}

/** The most tasks one list may hold. */
export const MAX_TASKS = 100

/** A problem with the list as written, for INVALID_PARAM. */
export interface TodoProblem {
  readonly field: string
  readonly message: string
}

/**
 * Turns the model's list into stored tasks, or the problems found: empty
 * content, duplicate ids, more than one task in progress, too many tasks.
 * Missing ids get the smallest unused positive integers, in list order.
 */
export const normalizeTodos = (input: ReadonlyArray<TodoInput>): { readonly todos: ReadonlyArray<Todo> } | { readonly problems: ReadonlyArray<TodoProblem> } => {
  const problems: Array<TodoProblem> = []
  if (input.length > MAX_TASKS) problems.push({ field: "todos", message: `at most ${MAX_TASKS} tasks (got ${input.length})` })
  const given = input.map((t) => (t.id === undefined ? undefined : String(t.id).trim()))
  const seen = new Map<string, number>()
  given.forEach((id, i) => {
    if (id === undefined) return
    if (id === "") problems.push({ field: `todos.${i}.id`, message: "the id is empty" })
    else if (seen.has(id)) problems.push({ field: `todos.${i}.id`, message: `duplicate id '${id}': ${taskPlaces([seen.get(id) ?? 0])} has it too` })
    else seen.set(id, i)
  })
  input.forEach((t, i) => {
    if (t.content.trim() === "") problems.push({ field: `todos.${i}.content`, message: "the task has no content" })
  })
  const active = input.flatMap((t, i) => (t.status === "in_progress" ? [i] : []))
  if (active.length > 1) {
    problems.push({
      field: "todos",
      message: `at most one task may be in_progress; ${active.length} are: ${taskPlaces(active)}. Finish or pause the others first.`,
    })
  }
  if (problems.length > 0) return { problems }
  let next = 1
  const todos = input.map((t, i): Todo => {
    let id = given[i]
    if (id === undefined) {
      while (seen.has(String(next))) next++
      id = String(next)
      seen.set(id, i)
    }
    return { id, content: t.content.trim(), status: t.status, priority: t.priority ?? "medium" }
  })
  return { todos }
}

/** Tasks still to do: pending or in progress. */
export const activeCount = (todos: ReadonlyArray<Todo>): number =>
  todos.filter((t) => t.status === "pending" || t.status === "in_progress").length

/** One line per task: `#2 [in_progress] (high) Write the parser`. */
export const renderTodos = (todos: ReadonlyArray<Todo>): string =>
  todos.map((t) => `#${t.id} [${t.status}] (${t.priority}) ${t.content.replace(/\s*\n\s*/g, " ")}`).join("\n")


/** Reads the tasks of a stored list, or undefined when the value is not one. */
export const parseStoredTodos = (value: unknown): ReadonlyArray<Todo> | undefined => {
  if (!isRecord(value) || !Array.isArray(value.todos)) return undefined
  const out: Array<Todo> = []
  for (const t of value.todos) {
    if (!isRecord(t)) return undefined
    const { id, content, status, priority } = t
    if (typeof id !== "string" || typeof content !== "string") return undefined
    if (!(TASK_STATUSES as ReadonlyArray<unknown>).includes(status)) return undefined
    out.push({
      id,
      content,
      status: status as TodoStatus,
      priority: (TASK_PRIORITIES as ReadonlyArray<unknown>).includes(priority) ? (priority as TodoPriority) : "medium",
    })
  }
  return out
}
