import { Data } from "effect"

/** Nothing (or a link to nothing) is at the path; `suggestions` are similar paths that exist. */
export class PathNotFound extends Data.TaggedError("PathNotFound")<{
  /** What was looked for. */
  readonly kind: "file" | "dir"
  readonly shown: string
  readonly suggestions: ReadonlyArray<string>
  /** Why, when more is known (" (a symbolic link whose target does not exist)"). */
  readonly why: string
  /** The file that stands where one of the path's folders should be (`a.txt` for `a.txt/b.txt`), if one does. */
  readonly inTheWay?: string
  /** The nearest folder that exists (the one holding `inTheWay` if there is one), when known. */
  readonly folder?: string
}> {}

/** A folder was given where a file is read. */
export class IsAFolder extends Data.TaggedError("IsAFolder")<{ readonly shown: string }> {}

/** A file was given where a folder is listed. */
export class NotAFolder extends Data.TaggedError("NotAFolder")<{ readonly shown: string }> {}

/** Neither a regular file nor a folder (a FIFO, a socket, a device). */
export class NotARegularFile extends Data.TaggedError("NotARegularFile")<{ readonly shown: string; readonly type: string }> {}

/** The file's first bytes say it is not text. */
export class BinaryFile extends Data.TaggedError("BinaryFile")<{ readonly shown: string; readonly size: number }> {}

/** A UTF-16 file too large to decode whole. */
export class Utf16TooLarge extends Data.TaggedError("Utf16TooLarge")<{ readonly shown: string; readonly size: number; readonly limit: number }> {}

/** The window starts after the file's last line. */
export class LinesPastEnd extends Data.TaggedError("LinesPastEnd")<{
  readonly shown: string
  readonly offset: number
  readonly total: number
  /** The offset of a window that ends at the last line. */
  readonly lastWindow: number
}> {}

/** The page starts after the folder's last entry. */
export class EntriesPastEnd extends Data.TaggedError("EntriesPastEnd")<{ readonly shown: string; readonly offset: number; readonly total: number; readonly limit: number }> {}

/** One of the globs to leave out is not a pattern. */
export class IgnoreGlobInvalid extends Data.TaggedError("IgnoreGlobInvalid")<{ readonly index: number; readonly pattern: string; readonly message: string }> {}

/** Every way reading a file's lines or listing a folder fails. */
export type FilesError =
  | PathNotFound
  | IsAFolder
  | NotAFolder
  | NotARegularFile
  | BinaryFile
  | Utf16TooLarge
  | LinesPastEnd
  | EntriesPastEnd
  | IgnoreGlobInvalid

/** Classes of the files domain's errors (for telling them from the workspace's). */
export const FILES_ERRORS = [PathNotFound, IsAFolder, NotAFolder, NotARegularFile, BinaryFile, Utf16TooLarge, LinesPastEnd, EntriesPastEnd, IgnoreGlobInvalid] as const

