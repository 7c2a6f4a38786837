import { Clock, Effect } from "effect"
import { pathStopOf } from "../workspace/file-in-the-way.ts"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { closeQuietly, fdPath, hasFdPaths, headOfPath, kindOfPath, readStillAt, stillAt } from "../workspace/checked-fs.ts"
import { constants, openSync } from "node:fs"
import { BINARY_SNIFF_BYTES, looksBinary } from "../workspace/text-sniff.ts"
import { allPathBytesOf } from "../workspace/lossy-name.ts"
import { basenameKeeping, decodePath, dirnameKeeping, fsPath, hasEscapedBytes, parseShownPath, replacingEscapes, resolveKeeping, showPath } from "../workspace/path-bytes.ts"
import { fromErrno, fromPlatformError } from "../workspace/fs-error.ts"
import { insideRepository, makeIgnoreOracle } from "../workspace/ignore-rules.ts"
import { Workspace } from "../workspace/workspace.ts"
import { hiddenAt, type PathFilter } from "../workspace/path-filter.ts"
import { decodeForSearch, FallbackPatternError, searchInProcess } from "./fallback-search.ts"
import { firstInOrder } from "./first-in-order.ts"
import { comparePaths, GlobMatcher, GlobPatternError, strictPatternProblem } from "./glob-pattern.ts"
import { GrepBinaryFile, GrepIncludeInvalid, GrepInsideGit, GrepNotSearchable, GrepPathNotFound, GrepPatternInvalid, GrepTimedOut } from "./grep-error.ts"
import { locateRipgrep } from "./ripgrep-binary.ts"
import { crlfModeFor } from "./rust-regex.ts"
import { RipgrepFailed, RipgrepPatternError, RipgrepUnavailable, searchWithRipgrep } from "./ripgrep-search.ts"
import { includeAccepts, type FileResult, type IncludeFilter, type OutputMode, type SearchOutcome, type SearchRequest, type SearchStop, type SearchTarget } from "./search-types.ts"

/** One grep: what to look for, where, and the limits it runs within. */
export interface GrepRequest {
  readonly pattern: string
  /** The file or folder to search, as given (relative to the working directory). */
  readonly path: string
  /** Only files matching this glob (empty: every file). */
  readonly include?: string | undefined
  readonly caseSensitive: boolean
  readonly mode: OutputMode
  /** Context lines before and after each match (content mode). */
  readonly before: number
  readonly after: number
  /** Lines (content mode) or files shown at most. */
  readonly maxMatches: number
  /** Order and re-check every file found, not only the first `maxMatches` (for a complete list beside a cut one). */
  readonly listAll?: boolean
  /** "builtin" never starts ripgrep. */
  readonly engine: "auto" | "builtin"
  /** The ripgrep to run (else the one found on PATH or beside anvil). */
  readonly rgPath?: string | undefined
  /** ripgrep's environment. */
  readonly rgEnv: Readonly<Record<string, string>>
  readonly timeoutMs: number
  readonly maxStoredLines: number
  readonly maxEntries: number
  /** Folder names never searched. */
  readonly ignoredDirs: ReadonlySet<string>
  /** Paths never searched, counted or shown whatever the request (what the permission rules let no tool read). */
  readonly hidden?: PathFilter | undefined
}

/** A file with hits, as results name it. */
export interface ShownFile {
  readonly f: FileResult
  readonly display: string
}

/** What a grep found. */
export interface GrepResult {
  /** The path searched, as results name it. */
  readonly shown: string
  /** Every file with hits (with the totals). */
  readonly found: ReadonlyArray<FileResult>
  /** The files that may be shown, newest first, each still where (and as) the search found it. */
  readonly shownFiles: ReadonlyArray<ShownFile>
  readonly stopped?: SearchStop | undefined
  readonly engine: "rg" | "builtin"
  /** Why the built-in search ran instead of ripgrep. */
  readonly fallbackReason?: string | undefined
  readonly filesSearched?: number | undefined
  readonly warnings: ReadonlyArray<string>
  /** Files and folders that could not be read, as results name them. */
  readonly failed: ReadonlyArray<string>
  readonly totalLines: number
}

const SNIFF = BINARY_SNIFF_BYTES
const joinDisplay = (base: string, rel: string) => (base === "." ? rel : `${base}/${rel}`)

/** An include glob as ripgrep `--glob`s, when ripgrep reads it the same way (or more broadly: the results are re-checked). */
const rgGlobsFor = (matcher: GlobMatcher): ReadonlyArray<string> | undefined =>
  matcher.expanded.some((p) => p.startsWith("!") || p.includes("\\") || p.includes("[:") || p.includes("[=") || p.includes("[."))
    ? undefined
    : // rg compares bytes: a pattern beyond ASCII goes in both Unicode forms (NFC, and NFD as macOS stores names).
      [...new Set(matcher.expanded.flatMap((p) => [p, p.normalize("NFD")]))]

/**
 * The services {@link grep} uses beyond the core ones (a tool's `requires`). It streams no file through
 * FileSystem (files are read through checked descriptors), so a one-tool call's lazy one serves it.
 */
export const GREP_SERVICES = [BulkFs, ProcessRunner] as const

/**
 * A regex search of file contents inside the project: ripgrep first, the
 * in-process search when no ripgrep can run; files newest first, each file to
 * be shown re-checked to be still inside the root and still holding its lines.
 */
export const grep = (request: GrepRequest) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const fs = yield* FileSystem
    const path = yield* Path
    const { mode, maxMatches } = request

    let include: IncludeFilter | undefined
    if (request.include !== undefined && request.include.trim() !== "") {
      // A leading `!` leaves the matching files out, as ripgrep's --glob reads it (`\!` is a literal `!`).
      const negated = request.include.startsWith("!")
      const glob = negated ? request.include.slice(1) : request.include
      if (glob.trim() === "") return yield* new GrepIncludeInvalid({ message: "'!' must be followed by the glob of the files to leave out" })
      const problem = strictPatternProblem(glob)
      if (problem !== undefined) return yield* new GrepIncludeInvalid({ message: problem })
      const matcher = yield* Effect.try({
        try: () => GlobMatcher.compile(glob, { dot: true, matchBase: true }),
        catch: (e) => new GrepIncludeInvalid({ message: e instanceof GlobPatternError ? e.message : String(e) }),
      })
      // Left out files are filtered after the search: ripgrep is not told, so its reading can never be broader.
      const rgGlobs = negated ? undefined : rgGlobsFor(matcher)
      include = { matcher, ...(negated ? { negated } : {}), ...(rgGlobs ? { rgGlobs } : {}) }
    }

    // Where to search.
    const resolved = yield* ws.resolve(request.path)
    const shown = resolved.display
    if (!resolved.exists) return yield* new GrepPathNotFound({ shown, ...pathStopOf(resolved.absolute, shown) })
    if (shown.split("/").includes(".git") || ws.display(resolved.real).split("/").includes(".git")) return yield* new GrepInsideGit()
    // A path whose name is not UTF-8 (escaped bytes) is opened by its bytes (effect's FileSystem would look for the
    // name with U+FFFD in it).
    const bytesNamed = hasEscapedBytes(resolved.real)
    const info = bytesNamed
      ? yield* Effect.try({ try: () => ({ type: kindOfPath(resolved.real) }), catch: (e) => fromErrno((e as { code?: string }).code, shown, String(e)) })
      : yield* fs.stat(resolved.real).pipe(Effect.mapError((e) => fromPlatformError(e, shown)))
    if (info.type !== "Directory" && info.type !== "File") return yield* new GrepNotSearchable({ shown })
    const isFile = info.type === "File"
    const target: SearchTarget = isFile
      ? { dir: dirnameKeeping(resolved.real, path.dirname), file: basenameKeeping(resolved.real, path.basename) }
      : { dir: resolved.real }

    if (isFile) {
      // Opened without blocking: a FIFO put in the file's place since the stat would hang a plain open for good.
      const head = yield* Effect.try({ try: () => headOfPath(resolved.real, SNIFF), catch: (e) => fromErrno((e as { code?: string }).code, shown, String(e)) })
      if (looksBinary(head)) return yield* new GrepBinaryFile({ shown })
    }

    // A folder searched through a link is judged by where it really is too.
    const hiddenFilter = request.hidden
    const bases = [...new Set([parseShownPath(shown), ws.display(target.dir)])]
    const hidden = hiddenFilter && !isFile ? (rel: string, dir: boolean) => hiddenAt(hiddenFilter, bases, rel, dir) : undefined
    const started = yield* Clock.currentTimeMillis
    const search: SearchRequest = {
      pattern: request.pattern,
      caseSensitive: request.caseSensitive,
      mode,
      before: request.before,
      after: request.after,
      ...(include ? { include } : {}),
      // One file searched for its complete list keeps all its matching lines (up to the stored-lines stop): what a
      // folder search's saved list leaves out of a file is reached by searching that file.
      keepPerFile: mode !== "content" ? 0 : isFile && request.listAll === true ? Math.max(maxMatches, request.maxStoredLines) : maxMatches,
      maxStoredLines: request.maxStoredLines,
      deadline: started + request.timeoutMs,
      ignoredDirs: request.ignoredDirs,
      maxEntries: request.maxEntries,
      insideRepository: insideRepository(ws.root),
      crlf: crlfModeFor(request.pattern),
      ...(hidden ? { hidden, hiddenGlobs: [...new Set(bases.flatMap((b) => hiddenFilter!.rgExcludes(b)))] } : {}),
    }

    // ripgrep first; the in-process search when no rg can run.
    let fallbackReason: string | undefined
    let outcome: SearchOutcome | undefined
    // A path whose name is not UTF-8 cannot be an argument (rg's arguments are UTF-8): rg is started in the folder
    // as opened here instead, and searches "." or the file's name; a file whose own name is not UTF-8 is searched
    // in-process.
    const unnameable = bytesNamed && (!hasFdPaths || (isFile && hasEscapedBytes(target.file!)))
    if (request.engine === "builtin") fallbackReason = "ripgrep is disabled by configuration (tools.grep.engine: builtin)"
    else if (unnameable) fallbackReason = `the ${isFile && hasEscapedBytes(target.file!) ? "file's" : "folder's"} name is not UTF-8, which ripgrep cannot be given`
    else {
      const rg = request.rgPath ?? (yield* locateRipgrep)
      if (rg === undefined) fallbackReason = "ripgrep was not found"
      else {
        const attempt = yield* Effect.acquireUseRelease(
          Effect.sync(() => (bytesNamed ? openFolderQuietly(target.dir) : undefined)),
          (fd) => searchWithRipgrep(rg, search, fd === undefined ? target : { ...target, dirHandle: fdPath(fd) }, request.rgEnv),
          (fd) => Effect.sync(() => closeQuietly(fd)),
        ).pipe(Effect.result)
        if (attempt._tag === "Success") outcome = attempt.success
        else {
          const failure = attempt.failure
          if (failure instanceof RipgrepPatternError) return yield* new GrepPatternInvalid({ message: failure.message, reason: failure.reason, unsupported: false })
          fallbackReason =
            failure instanceof RipgrepUnavailable
              ? `ripgrep could not be started (${failure.message})`
              : failure instanceof RipgrepFailed
                ? failure.message
                : String(failure)
        }
      }
    }
    const engine = outcome ? "rg" : "builtin"
    if (outcome === undefined) {
      const fallback = yield* searchInProcess(search, target, ws.root).pipe(Effect.result)
      if (fallback._tag === "Failure") {
        const e = fallback.failure
        if (e instanceof FallbackPatternError) return yield* new GrepPatternInvalid({ message: e.message, reason: e.message, unsupported: e.unsupported })
        return yield* Effect.die(e)
      }
      outcome = fallback.success
    } else if (!isFile && (include !== undefined || hidden !== undefined || (!search.insideRepository && target.dir !== ws.root))) {
      // ripgrep's --glob whitelists beat ignore files, anvil's include does not; and outside a repository rg was
      // told to read no ignore file above the searched folder, so those between the root and it are applied here:
      // both re-checked with anvil's own rules. What the permission rules hide is dropped too (rg was told the part
      // its globs can say exactly).
      const recheck = include?.rgGlobs !== undefined || (!search.insideRepository && target.dir !== ws.root)
      const oracle = recheck ? yield* makeIgnoreOracle(ws.root, target.dir, request.ignoredDirs) : undefined
      const kept: Array<FileResult> = []
      for (const f of outcome.files) {
        if (include !== undefined && !includeAccepts(include, f.path)) continue
        if (hidden?.(f.path, false) === true) continue
        if (oracle && (yield* oracle.isIgnored(f.path))) continue
        kept.push(f)
      }
      outcome = { ...outcome, files: kept }
    }
    // A file named as `path` that include leaves out is not searched (ripgrep would search it): said, not a silent "no match".
    if (isFile && include !== undefined && !includeAccepts(include, target.file!)) {
      const why = `${shown} does not match include '${request.include}', so it was not searched; leave include out to search it`
      outcome = { ...outcome, files: [], warnings: [why, ...outcome.warnings] }
    }

    // A name that is not UTF-8 in rg's count output (plain text) came with replacement characters: its bytes are
    // looked up in its folder and kept escaped, as the other engines and modes give them.
    // Names that read the same that way are given the folder's entries of that reading in the order rg named them.
    const taken = new Map<string, number>()
    const escaped = (f: FileResult): FileResult => {
      if (!f.path.includes("\uFFFD")) return f
      const candidates = allPathBytesOf(path.join(target.dir, f.path))
      const n = taken.get(f.path) ?? 0
      taken.set(f.path, n + 1)
      const bytes = candidates[n]
      return bytes instanceof Buffer ? { ...f, path: decodePath(bytes).slice(target.dir.length + (target.dir.endsWith("/") ? 0 : 1)) } : f
    }
    // Newest files first, then by path. rg stats the files while it searches; the rest are stat'ed here.
    const found = outcome.files.map(escaped)
    const unstamped = found.filter((f) => f.mtime === undefined)
    if (unstamped.length > 0) {
      const times = yield* (yield* BulkFs).mtimes(unstamped.map((f) => resolveKeeping(target.dir, f.path, path.join)))
      for (let i = 0; i < unstamped.length; i++) unstamped[i]!.mtime = times[i] ?? 0
    }
    // Only the files that can be shown are put in order: max_matches of them, or in content mode enough
    // for max_matches lines (every file with lines has one at least).
    const showable = request.listAll ? found.length : mode === "content" ? maxMatches + found.filter((f) => f.lines.length === 0).length : maxMatches
    // Each file about to be shown is re-opened and must still be where the search found it (no folder on the way
    // swapped for a link out of the root while the search ran); the others are dropped unseen.
    // Lines shown must also be in the file as it is now: the engine may have read it through a link
    // that was swapped back since.
    const shownFiles = firstInOrder(found, showable, (a, b) => b.mtime! - a.mtime! || comparePaths(a.path, b.path))
      .filter((f) => stillHolds(ws.contains, resolveKeeping(target.dir, f.path, path.join), f))
      // One file searched is named as it was given: through a link, the engine saw the target's name.
      .map((f) => ({ f, display: isFile ? shown : showPath(joinDisplay(parseShownPath(shown), f.path)) }))

    let totalLines = 0
    for (const f of found) totalLines += f.matchedLines
    if (outcome.stoppedBy === "timeout" && found.length === 0) return yield* new GrepTimedOut({ shown, timeoutMs: request.timeoutMs })
    const result: GrepResult = {
      shown,
      found,
      shownFiles,
      stopped: outcome.stoppedBy,
      engine,
      fallbackReason,
      filesSearched: outcome.filesSearched,
      warnings: outcome.warnings,
      failed: (outcome.failed ?? []).map((rel) => (isFile ? shown : showPath(joinDisplay(parseShownPath(shown), rel)))),
      totalLines,
    }
    return result
  })

/** A folder opened by its bytes, or undefined when it cannot be (rg then reports it as it reports a missing folder). */
const openFolderQuietly = (dir: string): number | undefined => {
  try {
    return openSync(fsPath(dir), constants.O_RDONLY | constants.O_DIRECTORY)
  } catch {
    return undefined
  }
}

/** Files bigger than this are checked for place only when their hits are shown. */
const RECHECK_MAX_BYTES = 16 * 1024 * 1024

/** Whether a hit file is still inside the root where it was found and still holds every line about to be shown. */
const stillHolds = (contains: (p: string) => boolean, file: string, f: FileResult): boolean => {
  if (!contains(file)) return false
  if (f.lines.length === 0) return stillAt(file)
  const bytes = readStillAt(file, RECHECK_MAX_BYTES)
  if (bytes === undefined) return false
  if (bytes === "large") return true
  const text = replacingEscapes(decodeForSearch(bytes) ?? new TextDecoder().decode(bytes))
  return f.lines.every((m) => text.includes(m.text) && m.before.every((l) => text.includes(l.text)) && m.after.every((l) => text.includes(l.text)))
}
