import { Data } from "effect"

/** The glob is not a pattern (or one the matcher refuses). */
export class GlobInvalid extends Data.TaggedError("GlobInvalid")<{ readonly message: string }> {}

/** Nothing is at the folder to search. */
export class GlobFolderNotFound extends Data.TaggedError("GlobFolderNotFound")<{
  readonly shown: string
  /** The file that stands where one of the path's folders should be, if one does. */
  readonly inTheWay?: string
  /** The nearest folder that exists (the one holding `inTheWay` if there is one), when known. */
  readonly folder?: string
}> {}

/** The path to search is a file. */
export class GlobNotAFolder extends Data.TaggedError("GlobNotAFolder")<{ readonly shown: string }> {}

/** Every way a glob fails. */
export type GlobError = GlobInvalid | GlobFolderNotFound | GlobNotAFolder
