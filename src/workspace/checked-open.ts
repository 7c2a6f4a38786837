import { Effect } from "effect"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { closeQuietly, openCheckedDir, openCheckedFile, OutsideRoot, type CheckedDir, type CheckedFile, type Contains } from "./checked-fs.ts"
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

/**
 * Opens a file or folder for reading and checks where the descriptor really
 * is (see checked-fs); undefined when nothing is there (a dangling link
 * included). The caller closes the descriptor (`closeQuietly`), or uses
 * `withCheckedFile`.
 */
export const openChecked = (
  contains: Contains,
  absolute: string,
  input: string,
  shown: string,
  field = "path",
): Effect.Effect<CheckedFile | undefined, ToolError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(openCheckedFile(contains, absolute))
    } catch (e) {
      const error = translate(e, input, shown, field)
      return error ? Effect.fail(error) : Effect.succeed(undefined)
    }
  })

/** `openChecked` whose descriptor is closed when the scope ends. */
export const openCheckedScoped = (contains: Contains, absolute: string, input: string, shown: string, field = "path") =>
  Effect.acquireRelease(openChecked(contains, absolute, input, shown, field), (f) => Effect.sync(() => closeQuietly(f?.fd)))

/** Opens a folder and checks where it really is; undefined when it does not exist. */
export const openCheckedFolder = (
  contains: Contains,
  absolute: string,
  input: string,
  shown: string,
  field = "path",
): Effect.Effect<CheckedDir | undefined, ToolError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(openCheckedDir(contains, absolute))
    } catch (e) {
      const error = translate(e, input, shown, field)
      return error ? Effect.fail(error) : Effect.succeed(undefined)
    }
  })
