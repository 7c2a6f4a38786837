/**
 * Paths a search must leave out whatever it is asked (what the permission rules let no tool read): never
 * searched, listed or counted. Root-relative POSIX paths, as results name them.
 */
export interface PathFilter {
  /** Whether a path is left out (`dir`: a folder, left out with everything it holds). */
  readonly hides: (path: string, dir: boolean) => boolean
  /**
   * The same as ripgrep `--glob` exclusions (`!…`) for a search of the folder `base` ("." for the root), each
   * leaving out hidden paths only; what they cannot say is left to `hides`, which is applied to what rg finds.
   */
  readonly rgExcludes: (base: string) => ReadonlyArray<string>
}

/** Where a search found something: the path as results name it and, when the search ran through a link, where it really is. */
export const hiddenAt = (filter: PathFilter, bases: ReadonlyArray<string>, rel: string, dir: boolean): boolean =>
  bases.some((base) => filter.hides(base === "." ? rel : `${base}/${rel}`, dir))
