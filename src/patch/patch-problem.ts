import { Data } from "effect"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a patch cannot be parsed or applied, raised inside the pure patch code
 * (parsers, locator, applier); tools/patch-errors.ts gives each kind its
 * envelope code. `line` is the 1-based line in the patch text when known.
 *
 * - malformed: the patch text is not a patch, or asks for what patch does not do (links, submodules)
 * - does_not_apply: a hunk does not match the file
 * - binary: a binary change
 * - internal: an unexpected failure while applying
 */
export class PatchProblem extends Data.TaggedError("PatchProblem")<{
  readonly kind: "malformed" | "does_not_apply" | "binary" | "internal"
  readonly message: string
  readonly extra: PatchProblemExtra
  readonly hints?: ReadonlyArray<RetrievalHint> | undefined
}> {
  constructor(kind: PatchProblem["kind"], message: string, extra: PatchProblemExtra = {}, hints?: ReadonlyArray<RetrievalHint>) {
    super({ kind, message, extra, ...(hints ? { hints } : {}) })
  }
}

/** Where in the patch or the file a problem is. */
export interface PatchProblemExtra {
  readonly line?: number
  readonly details?: string
  readonly path?: string
  readonly fileLine?: number
}

/** A syntax problem in the patch text at a 1-based line. */
export const syntaxProblem = (line: number, message: string): PatchProblem =>
  new PatchProblem("malformed", `Patch line ${line}: ${message}`, { line })
