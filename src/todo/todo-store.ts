import { Clock, Effect } from "effect"
import { Path } from "effect/Path"
import { readCurrent, replaceFile } from "../workspace/replace-file.ts"
import { fromErrno } from "../workspace/fs-error.ts"
import { Workspace } from "../workspace/workspace.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { hint } from "../protocol/hint.ts"
import { TodoFileDamaged } from "./todo-error.ts"
import { parseStoredTodos, type Todo } from "./todo-list.ts"

/** Where a session's list lives: absolute path and how results name it. */
export const todoFile = (session: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const path = yield* Path
    const name = session.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_") || "session"
    const file = path.join(workspace.plannedStateDir("todos"), `${name}.json`)
    return { file, display: workspace.display(file), session }
  })

/**
 * The session's stored list (`.anvil/todos/<session>.json`): its tasks, or
 * none when nothing was written yet. A damaged file is a TodoFileDamaged.
 */
export const loadTodos = (session: string) =>
  Effect.gen(function* () {
    const where = yield* todoFile(session)
    // Read through a checked descriptor: a planted `.anvil/todos/<id>.json` link out leads nowhere.
    const workspace = yield* Workspace
    const folder = workspace.plannedStateDir("todos")
    const stored = yield* Effect.sync(() => {
      try {
        return readCurrent((p) => p.startsWith(`${folder}/`), where.file)
      } catch {
        return undefined
      }
    })
    if (stored === undefined) return { ...where, todos: [] as ReadonlyArray<Todo>, exists: false }
    let parsed: unknown
    try {
      parsed = JSON.parse(new TextDecoder().decode(stored.bytes))
    } catch {
      parsed = undefined
    }
    const todos = parseStoredTodos(parsed)
    if (todos === undefined) {
      return yield* new TodoFileDamaged({ display: where.display })
    }
    return { ...where, todos, exists: true }
  })

/** Replaces the session's stored list atomically; `.anvil/` gets its `.gitignore`. */
export const saveTodos = (session: string, todos: ReadonlyArray<Todo>) =>
  Effect.gen(function* () {
    const path = yield* Path
    const workspace = yield* Workspace
    const where = yield* todoFile(session)
    const now = yield* Clock.currentTimeMillis
    const body = { session: where.session, updated_at: new Date(now).toISOString(), todos }
    const dir = yield* Effect.try({ try: () => workspace.stateDir("todos"), catch: (e) => fromErrno((e as { code?: string }).code, ".anvil/todos", String(e)) })
    const file = path.join(dir, path.basename(where.file))
    const bytes = new TextEncoder().encode(`${JSON.stringify(body, null, 2)}\n`)
    // Replaced whatever is there (the list is the session's own), through the checked todos folder.
    yield* replaceFile(file, workspace.display(file), bytes, {
      root: workspace.root,
      contains: (p) => p === dir || p.startsWith(`${dir}/`),
      journalDir: workspace.stateDir("journal"),
    }).pipe(
      // Other writers outran every try: the list as it now stands is the next look, before it is written again.
      Effect.mapError((e) => (e.reason === "changed" && e.hints === undefined ? new WorkspaceError({ reason: e.reason, message: e.message, ...(e.path !== undefined ? { path: e.path } : {}), hints: [hint("TodoRead", "high", {})] }) : e)),
    )
    return { ...where, file, display: workspace.display(file) }
  })
