import type { ErrorCode } from "../protocol/error-code.ts"

/**
 * Why a patch cannot be parsed or applied, raised inside the pure patch code
 * (parsers, locator, applier) and turned into the tool's ToolError at the
 * edge. `line` is the 1-based line in the patch text when known.
 */
export class PatchProblem extends Error {
  readonly _tag = "PatchProblem"
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { readonly line?: number; readonly details?: string; readonly path?: string; readonly fileLine?: number } = {},
  ) {
    super(message)
  }
}

/** A syntax problem in the patch text at a 1-based line. */
export const syntaxProblem = (line: number, message: string): PatchProblem =>
  new PatchProblem("INVALID_PARAM", `Patch line ${line}: ${message}`, { line })
