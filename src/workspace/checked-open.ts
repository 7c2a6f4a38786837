import { Effect } from "effect"
import { closeQuietly, openCheckedFile, OutsideRoot, type CheckedFile, type Contains } from "./checked-fs.ts"
import { fromErrno } from "./fs-error.ts"
import { WorkspaceError } from "./workspace-error.ts"

/** A path whose opened file or folder turned out to lie outside the root. */
export const leadsOutside = (input: string, field = "path"): WorkspaceError =>
  new WorkspaceError({
    reason: "outside_root",
    message: `Access denied: '${input}' leads outside the project root (through a symbolic link).`,
    field: { name: field, problem: "outside the project root" },
  })

const translate = (e: unknown, input: string, shown: string, field: string, absolute?: string): WorkspaceError | undefined => {
  if (e instanceof OutsideRoot) return leadsOutside(input, field)
  const code = (e as { code?: string }).code
  if (code === "ENOENT") return undefined
  return fromErrno(code, shown, e instanceof Error ? e.message : String(e), absolute, field)
}

/** Runs a checked open: its value, undefined when nothing is there, or the workspace error for anything else. */
const attempt = <A>(open: () => A, input: string, shown: string, field: string, absolute?: string): Effect.Effect<A | undefined, WorkspaceError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(open())
    } catch (e) {
      const error = translate(e, input, shown, field, absolute)
      return error ? Effect.fail(error) : Effect.succeed(undefined)
    }
  })

/**
 * Opens a file or folder for reading and checks where the descriptor really
 * is (see checked-fs); undefined when nothing is there (a dangling link
 * included). The caller closes the descriptor (`closeQuietly`), or uses
 * `openCheckedScoped`.
 */
export const openChecked = (contains: Contains, absolute: string, input: string, shown: string, field = "path"): Effect.Effect<CheckedFile | undefined, WorkspaceError> =>
  attempt(() => openCheckedFile(contains, absolute), input, shown, field, absolute)

/** `openChecked` whose descriptor is closed when the scope ends. */
export const openCheckedScoped = (contains: Contains, absolute: string, input: string, shown: string, field = "path") =>
  Effect.acquireRelease(openChecked(contains, absolute, input, shown, field), (f) => Effect.sync(() => closeQuietly(f?.fd)))
