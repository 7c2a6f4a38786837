import { Data } from "effect"

/** The glob is not a pattern (or one the matcher refuses). */
export class GlobInvalid extends Data.TaggedError("GlobInvalid")<{ readonly message: string }> {}

/** Nothing is at the folder to search. */
export class GlobFolderNotFound extends Data.TaggedError("GlobFolderNotFound")<{ readonly shown: string }> {}

/** The path to search is a file. */
export class GlobNotAFolder extends Data.TaggedError("GlobNotAFolder")<{ readonly shown: string }> {}

/** Every way a glob fails. */
export type GlobError = GlobInvalid | GlobFolderNotFound | GlobNotAFolder
