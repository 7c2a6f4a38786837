import { Clock, Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { SessionInfo } from "../tool-framework/session.ts"
import { toolError } from "../protocol/tool-error.ts"
import { atomicWrite } from "../workspace/atomic-write.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { ensureStateDir } from "../workspace/state-dir.ts"
import { Workspace } from "../workspace/workspace.ts"
import { hint } from "../protocol/hint.ts"
import { parseStoredTodos, type Todo } from "./todo-list.ts"

/** Where the current session's list lives: absolute path and how results name it. */
export const todoFile = Effect.gen(function* () {
  const workspace = yield* Workspace
  const session = yield* SessionInfo
  const path = yield* Path
  const name = session.id.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_") || "session"
  const file = path.join(workspace.root, ".anvil", "todos", `${name}.json`)
  return { file, display: workspace.display(file), session: session.id }
})

/**
 * The session's stored list (`.anvil/todos/<session>.json`): its tasks, or
 * none when nothing was written yet. A damaged file is an EXECUTION_ERROR that
 * says how to recover (write the list again).
 */
export const loadTodos = Effect.gen(function* () {
  const fs = yield* FileSystem
  const where = yield* todoFile
  const text = yield* fs.readFileString(where.file).pipe(Effect.option)
  if (text._tag === "None") return { ...where, todos: [] as ReadonlyArray<Todo>, exists: false }
  let parsed: unknown
  try {
    parsed = JSON.parse(text.value)
  } catch {
    parsed = undefined
  }
  const todos = parseStoredTodos(parsed)
  if (todos === undefined) {
    return yield* toolError("EXECUTION_ERROR", `The todo file ${where.display} is damaged (not a todo list). Write the whole list again with TodoWrite.`, {
      hints: [hint("TodoWrite", "high", { todos: "<the full list>" })],
    })
  }
  return { ...where, todos, exists: true }
})

/** Replaces the session's stored list atomically; `.anvil/` gets its `.gitignore`. */
export const saveTodos = (todos: ReadonlyArray<Todo>) =>
  Effect.gen(function* () {
    const path = yield* Path
    const where = yield* todoFile
    const now = yield* Clock.currentTimeMillis
    const body = { session: where.session, updated_at: new Date(now).toISOString(), todos }
    yield* ensureStateDir(path.dirname(path.dirname(where.file))).pipe(Effect.mapError((e) => fromPlatformError(e, ".anvil")))
    yield* atomicWrite(where.file, new TextEncoder().encode(`${JSON.stringify(body, null, 2)}\n`)).pipe(
      Effect.mapError((e) => fromPlatformError(e, where.display)),
    )
    return where
  })
