import { Data } from "effect"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a write or an edit refuses to change a file. The edit tools give each
 * reason its envelope code in one place (tools/edit-errors.ts).
 *
 * - invalid_edit: an edit cannot be applied (same text, empty old_string, no or many matches, unencodable)
 * - not_a_file: the path names something other than a regular file
 * - too_large: the file is over the tool's size limit
 * - missing: the file to edit does not exist
 * - is_directory: the path names a folder
 * - binary: the content is not text
 * - stale: the file is not the version the caller knows (never read, changed since, other sha256)
 * - read_only: the file is read-only (no write permission for this user; for root, no write bit at all)
 */
export class EditError extends Data.TaggedError("EditError")<{
  readonly reason: "invalid_edit" | "not_a_file" | "too_large" | "missing" | "is_directory" | "binary" | "stale" | "read_only"
  readonly message: string
  /** The parameter at fault, and what is wrong with it. */
  readonly field?: { readonly name: string; readonly problem: string }
  /** The file as results name it. */
  readonly path?: string
  /** Suggested next calls. */
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** Extra lines for the error text (the closest candidate region of the file). */
  readonly details?: string
}> {}
