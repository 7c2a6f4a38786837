import { Clock, Effect } from "effect"
import { pathStopOf } from "../workspace/file-in-the-way.ts"
import { FileSystem } from "../workspace/file-system.ts"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { type StopReason, walk } from "../workspace/walk.ts"
import { Workspace } from "../workspace/workspace.ts"
import { GlobFolderNotFound, GlobInvalid, GlobNotAFolder } from "./glob-error.ts"
import { comparePaths, GlobMatcher, GlobPatternError, type GlobState, matchesPath } from "./glob-pattern.ts"
import { hasEscapedBytes, parseShownPath, showPath } from "../workspace/path-bytes.ts"
import { kindOfPath } from "../workspace/checked-fs.ts"
import { hiddenAt, type PathFilter } from "../workspace/path-filter.ts"
import { realLocation } from "../workspace/real-location.ts"
import { leadsToFolder, throughLink } from "./glob-links.ts"

/** One glob: the pattern, the folder it is relative to, and the limits of the walk. */
export interface GlobRequest {
  readonly pattern: string
  /** The folder, as given (relative to the working directory). */
  readonly path: string
  /** Also names starting with "." (the pattern matches them). */
  readonly includeHidden: boolean
  /** Also what ignore files and the default ignore list leave out. */
  readonly includeIgnored: boolean
  readonly sortBy: "path" | "mtime"
  /** Folder names never entered. */
  readonly ignoredDirs: ReadonlySet<string>
  readonly maxEntries: number
  readonly maxDurationMs: number
  /** The parameter a refused `path` is named as: `pattern` when the path came from a link the pattern named. */
  readonly pathField?: "path" | "pattern"
  /** Paths never listed or counted whatever the pattern (what the permission rules let no tool read). */
  readonly hidden?: PathFilter | undefined
}

/** What a glob found. */
export interface GlobResult {
  /** The folder searched, as results name paths. */
  readonly shown: string
  /** The matching paths relative to that folder (folders end with "/"), in tree order or newest first. */
  readonly paths: ReadonlyArray<string>
  /** The walk's circuit breaker, when it tripped. */
  readonly stopped?: StopReason | undefined
  /** Folders that could not be read, relative to the folder searched. */
  readonly unreadable: ReadonlyArray<string>
  readonly visited: number
  readonly directories: number
}

/** The services a glob needs beyond the core ones (a tool that calls it names them in `requires`). */
export const GLOB_SERVICES = [BulkFs] as const

/**
 * The files (and folders) matching a bash globstar pattern under a folder of
 * the project: one walk that enters only the folders the pattern can match
 * inside, skips ignored ones, and stops at its entry and time limits.
 */
export const globFiles = (request: GlobRequest) =>
  Effect.gen(function* () {
    // A pattern through a link is searched from the link, as `path` (glob-links.ts), and named from the folder asked for.
    let current = request
    let through = ""
    let shown: string | undefined
    for (;;) {
      const found = yield* globOnce(current)
      if (!("redirect" in found)) {
        if (through === "" || shown === undefined) return found
        const under = (p: string) => `${through}/${p}`
        const result: GlobResult = { ...found, shown, paths: found.paths.map(under), unreadable: found.unreadable.map((p) => (p === "." ? through : under(p))) }
        return result
      }
      shown ??= found.shown
      through = through === "" ? found.redirect.through : `${through}/${found.redirect.through}`
      const base = current.path === "." || current.path === "" ? "" : `${current.path.replace(/\/+$/, "")}/`
      current = { ...current, path: base + found.redirect.through, pattern: found.redirect.rest, pathField: "pattern" }
    }
  })

/** One walk, or where to walk instead when the pattern's literal folders pass through a link. */
const globOnce = (request: GlobRequest) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const fs = yield* FileSystem
    const matcher = yield* Effect.try({
      try: () => GlobMatcher.compile(request.pattern, { dot: request.includeHidden }),
      catch: (e) => new GlobInvalid({ message: e instanceof GlobPatternError ? e.message : String(e) }),
    })

    const resolved = yield* ws.resolve(request.path, request.pathField)
    const shown = resolved.display
    if (!resolved.exists) return yield* new GlobFolderNotFound({ shown, ...pathStopOf(resolved.absolute, shown) })
    // A folder whose name is not UTF-8 (escaped bytes) is looked at by its bytes.
    const info = hasEscapedBytes(resolved.real)
      ? yield* Effect.try({ try: () => ({ type: kindOfPath(resolved.real) }), catch: () => new GlobFolderNotFound({ shown }) })
      : yield* fs.stat(resolved.real).pipe(Effect.mapError((e) => fromPlatformError(e, shown)))
    if (info.type !== "Directory") return yield* new GlobNotAFolder({ shown })
    const link = throughLink(request.pattern, resolved.real)
    if (link !== undefined) return { shown, redirect: link }

    const started = yield* Clock.currentTimeMillis
    const found: Array<string> = []
    // Judged as found and, through a link (the folder searched, or a link found), where it really is.
    const filter = request.hidden
    const bases = [...new Set([parseShownPath(shown), ws.display(resolved.real)])]
    const sep = resolved.real.endsWith("/") ? "" : "/"
    const isHidden = (rel: string, kind: string): boolean => {
      if (filter === undefined) return false
      if (hiddenAt(filter, bases, rel, kind === "dir")) return true
      if (kind !== "link") return false
      const real = realLocation(resolved.real + sep + rel)
      return ws.contains(real) && (filter.hides(ws.display(real), false) || filter.hides(ws.display(real), true))
    }
    const summary = yield* walk<GlobState>({
      root: ws.root,
      start: resolved.real,
      initial: matcher.start(),
      // A folders pattern also asks about links (a link to a folder is listed as one), whatever their names.
      keep: matcher.wantsDirs ? undefined : matcher.fileNameFilter(),
      includeIgnored: request.includeIgnored,
      ignoredDirs: request.ignoredDirs,
      maxEntries: request.maxEntries,
      deadline: started + request.maxDurationMs,
      ...(filter ? { skipDir: (rel: string) => hiddenAt(filter, bases, rel, true) } : {}),
      visitor: {
        dir: (state, name) => {
          const entered = matcher.enter(state, name)
          const self = matcher.wantsDirs ? matcher.matches(state, name, true) : undefined
          const descend = matcher.canDescend(entered.state)
          if (!descend && self === undefined) return undefined
          return {
            ...(descend ? { descend: entered.state } : {}),
            emit: self !== undefined,
            explicit: entered.explicit || (self?.explicit ?? false),
          }
        },
        file: (state, name, kind) =>
          kind === "other"
            ? undefined
            : (matcher.matches(state, name, false) ?? (kind === "link" && matcher.wantsDirs ? matcher.matches(state, name, true) : undefined)),
        files: (state) => (matcher.wantsDirs ? "each" : matcher.filesIn(state)),
      },
      onEntry: (rel, kind) => {
        if (isHidden(rel, kind)) return
        if (kind !== "link" || !matcher.wantsDirs) found.push(kind === "dir" ? `${rel}/` : rel)
        else {
          if (matchesPath(matcher, rel, false)) found.push(rel)
          if (matchesPath(matcher, rel, true) && leadsToFolder(resolved.real + sep + rel)) found.push(`${rel}/`)
        }
      },
    })

    let ordered: Array<string>
    if (request.sortBy === "mtime") {
      const times = yield* (yield* BulkFs).mtimes(found.map((p) => resolved.real + sep + p))
      const order = found.map((p, i) => ({ p, t: times[i] ?? 0 }))
      ordered = order.sort((a, b) => b.t - a.t || comparePaths(a.p, b.p)).map((x) => x.p)
    } else {
      // The walk reports in tree order already (comparePaths order).
      ordered = found
    }
    const result: GlobResult = {
      shown,
      paths: ordered,
      stopped: summary.stoppedBy,
      unreadable: summary.unreadable,
      visited: summary.visited,
      directories: summary.directories,
    }
    return result
  })

/**
 * A found path as results name it, from the folder searched as shown and the
 * path below it: a name that is not UTF-8 is quoted whole (showPath), as
 * read and edit take it back.
 */
export const globDisplay = (base: string, rel: string): string => showPath(base === "." ? rel : `${parseShownPath(base)}/${rel}`)
