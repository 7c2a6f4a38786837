import { Data } from "effect"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a file the patch names cannot be changed as the patch says: a refused
 * path (the root, inside .git), a folder, not a regular file, over the size
 * limit, not text, missing, already there, not matching what the patch
 * deletes, or made read-only. tools/patch-errors.ts gives each its envelope code.
 */
export class PatchTargetError extends Data.TaggedError("PatchTargetError")<{
  readonly kind: "refused" | "directory" | "not_a_file" | "too_large" | "binary" | "missing" | "exists" | "mismatch" | "read_only"
  readonly message: string
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** Envelope context (path_resolved, patch_line). */
  readonly context?: Readonly<Record<string, unknown>>
  /** The path as the patch wrote it, for a refused one. */
  readonly refusedPath?: string
}> {}
