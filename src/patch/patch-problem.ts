import { Data } from "effect"
import type { ErrorCode } from "../protocol/error-code.ts"
import type { RetrievalHint } from "../protocol/hint.ts"

/**
 * Why a patch cannot be parsed or applied, raised inside the pure patch code
 * (parsers, locator, applier) and turned into the tool's ToolError at the
 * edge. `line` is the 1-based line in the patch text when known.
 */
export class PatchProblem extends Data.TaggedError("PatchProblem")<{
  readonly code: ErrorCode
  readonly message: string
  readonly extra: PatchProblemExtra
  readonly hints?: ReadonlyArray<RetrievalHint> | undefined
}> {
  constructor(code: ErrorCode, message: string, extra: PatchProblemExtra = {}, hints?: ReadonlyArray<RetrievalHint>) {
    super({ code, message, extra, ...(hints ? { hints } : {}) })
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
  new PatchProblem("INVALID_PARAM", `Patch line ${line}: ${message}`, { line })
