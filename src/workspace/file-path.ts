import { Effect } from "effect"
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
