import { Data } from "effect"

/** The include glob is not a pattern (or one the matcher refuses). */
export class GrepIncludeInvalid extends Data.TaggedError("GrepIncludeInvalid")<{ readonly message: string }> {}

/** Nothing is at the path to search. */
export class GrepPathNotFound extends Data.TaggedError("GrepPathNotFound")<{
  readonly shown: string
  /** The file that stands where one of the path's folders should be, if one does. */
  readonly inTheWay?: string
  /** The nearest folder that exists (the one holding `inTheWay` if there is one), when known. */
  readonly folder?: string
}> {}

/** The path is inside a .git folder, which is never searched. */
export class GrepInsideGit extends Data.TaggedError("GrepInsideGit")<{}> {}

/** The path is neither a regular file nor a folder. */
export class GrepNotSearchable extends Data.TaggedError("GrepNotSearchable")<{ readonly shown: string }> {}

/** The one file to search is binary. */
export class GrepBinaryFile extends Data.TaggedError("GrepBinaryFile")<{ readonly shown: string }> {}

/** The regular expression does not compile (`unsupported`: valid, but the built-in search cannot run it faithfully). */
export class GrepPatternInvalid extends Data.TaggedError("GrepPatternInvalid")<{
  readonly message: string
  readonly reason: string
  readonly unsupported: boolean
}> {}

/** The search timed out before it found anything. */
export class GrepTimedOut extends Data.TaggedError("GrepTimedOut")<{ readonly shown: string; readonly timeoutMs: number }> {}

/** Every way a grep fails. */
export type GrepError = GrepIncludeInvalid | GrepPathNotFound | GrepInsideGit | GrepNotSearchable | GrepBinaryFile | GrepPatternInvalid | GrepTimedOut
