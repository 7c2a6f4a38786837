import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import { WorkspaceError } from "./workspace-error.ts"

/** Whether a path as typed ends with a separator (`a.txt/`, `a.txt/.`): it names a folder. */
export const namesFolder = (input: string): boolean => /\/\.?$/.test(input) && input.replace(/[/.]+$/, "") !== ""

/**
 * Refuses a path ending with `/` where a file is meant (read, write, edit), as
 * the system refuses `open("a.txt/")`: without this, `write a.txt/` made a
 * file `a.txt`. Call it once the path is known not to be a folder.
 */
export const refuseFolderSyntax = (input: string, shown: string, field = "path"): Effect.Effect<void, WorkspaceError> =>
  namesFolder(input)
    ? Effect.fail(
        new WorkspaceError({
          reason: "bad_path",
          message: `Invalid parameter '${field}': '${input}' ends with '/', which names a folder, but ${shown} is a file path here; give it without the trailing '/'.`,
          field: { name: field, problem: "ends with '/' (a folder), but a file is meant" },
        }),
      )
    : Effect.void

/**
 * Refuses an empty path (or one of spaces) where a file is meant (read, write, edit, the LSP tools): it would
 * resolve to the project's top folder and be answered IS_DIRECTORY, as if a folder had been named.
 */
export const refuseEmptyPath = (input: string, field = "path"): Effect.Effect<void, WorkspaceError> =>
  input.trim() === ""
    ? Effect.fail(
        new WorkspaceError({
          reason: "bad_path",
          message: `Invalid parameter '${field}': it is empty; name a file (root-relative, e.g. src/main.ts).`,
          field: { name: field, problem: "empty: a file path is needed" },
          // The listing of the top folder shows the names a file path can start with.
          hints: [hint("LS", "high", { path: "." })],
        }),
      )
    : Effect.void
