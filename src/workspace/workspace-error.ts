import { Data } from "effect"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a path or a file operation under the project root failed. The tools
 * give each reason its envelope code in one place (tools/workspace-errors.ts).
 *
 * - missing: nothing is there (or a component of the path is not a folder)
 * - os_denied: the operating system refused (permissions, read-only file system)
 * - is_directory: a folder where a file is needed
 * - bad_path: the path itself is unusable (NUL byte, too long, a link loop)
 * - outside_root: it leads outside the project root and the allowed folders
 * - protected: a path that makes code run later (git hooks, anvil.json, .vscode/…), which no file tool changes
 * - changed: the file changed on disk while a change to it was prepared (worth retrying)
 * - not_usable: something there cannot be written through (not a file or folder)
 * - failed: anything else (disk full, quota, an unknown error)
 */
export class WorkspaceError extends Data.TaggedError("WorkspaceError")<{
  readonly reason: "missing" | "os_denied" | "is_directory" | "bad_path" | "outside_root" | "protected" | "changed" | "not_usable" | "failed"
  readonly message: string
  /** The parameter that named the path, and what is wrong with it. */
  readonly field?: { readonly name: string; readonly problem: string }
  /** The file as results name it, when the error is about one file. */
  readonly path?: string
  /** Suggested next calls. */
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** A protected path's refusal: the entry of the protected list that covers it, and what the user can do. */
  readonly protectedPath?: { readonly entry: string; readonly next_step: string }
}> {}
