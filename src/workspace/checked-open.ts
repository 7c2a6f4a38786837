import { Effect } from "effect"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { closeQuietly, openCheckedFile, OutsideRoot, type CheckedFile, type Contains } from "./checked-fs.ts"
import { fromErrno } from "./fs-error.ts"

/** ACCESS_DENIED for a path whose opened file or folder turned out to lie outside the root. */
export const leadsOutside = (input: string, field = "path"): ToolError =>
  toolError("ACCESS_DENIED", `Access denied: '${input}' leads outside the project root (through a symbolic link).`, {
    fieldErrors: [{ field, message: "outside the project root" }],
  })

const translate = (e: unknown, input: string, shown: string, field: string): ToolError | undefined => {
  if (e instanceof OutsideRoot) return leadsOutside(input, field)
  const code = (e as { code?: string }).code
  if (code === "ENOENT") return undefined
  return fromErrno(code, shown, e instanceof Error ? e.message : String(e))
}

/** Runs a checked open: its value, undefined when nothing is there, or the tool error for anything else. */
const attempt = <A>(open: () => A, input: string, shown: string, field: string): Effect.Effect<A | undefined, ToolError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(open())
    } catch (e) {
      const error = translate(e, input, shown, field)
      return error ? Effect.fail(error) : Effect.succeed(undefined)
    }
  })

/**
 * Opens a file or folder for reading and checks where the descriptor really
 * is (see checked-fs); undefined when nothing is there (a dangling link
 * included). The caller closes the descriptor (`closeQuietly`), or uses
 * `openCheckedScoped`.
 */
export const openChecked = (contains: Contains, absolute: string, input: string, shown: string, field = "path"): Effect.Effect<CheckedFile | undefined, ToolError> =>
  attempt(() => openCheckedFile(contains, absolute), input, shown, field)

/** `openChecked` whose descriptor is closed when the scope ends. */
export const openCheckedScoped = (contains: Contains, absolute: string, input: string, shown: string, field = "path") =>
  Effect.acquireRelease(openChecked(contains, absolute, input, shown, field), (f) => Effect.sync(() => closeQuietly(f?.fd)))
