import { matchesPath, type GlobMatcher } from "./glob-pattern.ts"

/**
 * What both search engines (ripgrep and the in-process fallback) are asked
 * and what they answer, so the grep tool treats them alike.
 */

export type OutputMode = "content" | "files_with_matches" | "count"

/** Where to search: a directory (`file` undefined) or one file in it. */
export interface SearchTarget {
  /** Absolute real path of the directory searched (or holding the file). */
  readonly dir: string
  /** The file's name inside `dir`, when the search is of one file. */
  readonly file?: string
  /**
   * `dir` as opened by anvil (`/proc/self/fd/N`), where a program is started when `dir`'s name is not UTF-8 and
   * cannot be handed to it.
   */
  readonly dirHandle?: string
}

/** The include filter: matched against paths relative to the searched directory. */
export interface IncludeFilter {
  readonly matcher: GlobMatcher
  /** `!glob`: the files the matcher accepts are the ones left out (as ripgrep's `--glob '!…'`). */
  readonly negated?: boolean
  /** The same filter as ripgrep `--glob`s (a superset of what `matcher` accepts), when it can be expressed so. */
  readonly rgGlobs?: ReadonlyArray<string>
}

/** Whether a file (relative to the searched directory) passes the include filter. */
export const includeAccepts = (include: IncludeFilter, rel: string): boolean => matchesPath(include.matcher, rel) !== (include.negated === true)

export interface SearchRequest {
  readonly pattern: string
  readonly caseSensitive: boolean
  readonly mode: OutputMode
  readonly before: number
  readonly after: number
  readonly include?: IncludeFilter
  /** Match lines kept per file (more are only counted). */
  readonly keepPerFile: number
  /** Match lines kept in all; past this the search stops and totals become lower bounds. */
  readonly maxStoredLines: number
  /** Clock milliseconds at which the search stops and returns what it has. */
  readonly deadline: number
  /** Directory names skipped (the default ignore list). */
  readonly ignoredDirs: ReadonlySet<string>
  /** Paths the permission rules hide (relative to the searched directory; `dir`: a folder, with all it holds): never searched, counted or shown. */
  readonly hidden?: (rel: string, dir: boolean) => boolean
  /** Part of `hidden` as ripgrep `--glob '!…'`s (each leaves out hidden files only; the rest is filtered after). */
  readonly hiddenGlobs?: ReadonlyArray<string>
  /** Directory entries the in-process walk may look at. */
  readonly maxEntries: number
  /**
   * The project root lies in a git repository: ignore files are read as git
   * reads them (none across a repository's boundary). Otherwise the root's own
   * `.gitignore` files apply and none from above the root.
   */
  readonly insideRepository?: boolean
  /** Lines end in `\n` or `\r\n` (ripgrep's `--crlf`): `$` matches before a `\r` (see rust-regex.ts crlfModeFor). */
  readonly crlf?: boolean
}

export interface LineText {
  readonly line: number
  readonly text: string
}

export interface MatchLine {
  readonly line: number
  readonly text: string
  /** Character index of the first match in `text` (for cutting long lines around it). */
  readonly column: number
  before: ReadonlyArray<LineText>
  after: ReadonlyArray<LineText>
}

export interface FileResult {
  /** POSIX path relative to the searched directory. */
  readonly path: string
  /** Matching lines in the file (all of them, also those not kept). */
  readonly matchedLines: number
  /** The first matching lines, up to keepPerFile (empty unless mode is content). */
  readonly lines: ReadonlyArray<MatchLine>
  /**
   * Modification time in epoch milliseconds (0 when it could not be stat'ed),
   * when the engine stat'ed the file while it searched; grep stats the others.
   */
  mtime?: number
}

export type SearchStop = "timeout" | "collect_limit" | "max_entries"

export interface SearchOutcome {
  readonly files: ReadonlyArray<FileResult>
  readonly stoppedBy?: SearchStop
  /** Files searched, when the engine knows. */
  readonly filesSearched?: number
  /** Non-fatal problems (unreadable files), as messages. */
  readonly warnings: ReadonlyArray<string>
  /** Files and folders that could not be read (relative to the searched folder): the answer leaves them out. */
  readonly failed?: ReadonlyArray<string>
}

/** Attaches before/after context from a file's collected lines to its kept matches. */
export const attachContext = (
  lines: Array<MatchLine>,
  known: ReadonlyMap<number, string>,
  before: number,
  after: number,
): void => {
  if (before === 0 && after === 0) return
  for (const m of lines) {
    const b: Array<LineText> = []
    for (let n = Math.max(1, m.line - before); n < m.line; n++) {
      const text = known.get(n)
      if (text !== undefined) b.push({ line: n, text })
    }
    const a: Array<LineText> = []
    for (let n = m.line + 1; n <= m.line + after; n++) {
      const text = known.get(n)
      if (text !== undefined) a.push({ line: n, text })
    }
    m.before = b
    m.after = a
  }
}
