import { Data } from "effect"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a git operation failed: no repository around the working directory (or the environment names another), git
 * (or isomorphic-git, or a hook) failed, or git took too long. The git tools
 * translate it to an envelope error in tools/git-errors.ts.
 */
export class GitError extends Data.TaggedError("GitError")<{
  /** outside_project and other_repository: GIT_DIR or GIT_WORK_TREE names another repository than the working folder's (git-dir-env.ts). */
  readonly kind: "not_a_repository" | "outside_project" | "other_repository" | "failed" | "timeout"
  readonly message: string
  /** Suggested next calls. */
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** Extra lines for the error text (a hook's output). */
  readonly details?: string
}> {}

/** Shorthand: `gitError("failed", "git add failed: …", { hints })`. */
export const gitError = (
  kind: GitError["kind"],
  message: string,
  extra: { readonly hints?: ReadonlyArray<RetrievalHint>; readonly details?: string } = {},
): GitError => new GitError({ kind, message, ...extra })
