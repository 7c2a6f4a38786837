import { Clock, Effect, Schema, Stream } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { decodeForSearch, FallbackPatternError, searchInProcess } from "../search/fallback-search.ts"
import { firstInOrder } from "../search/first-in-order.ts"
import { comparePaths, GlobMatcher, GlobPatternError, matchesPath, strictPatternProblem } from "../search/glob-pattern.ts"
import { cutLongLine } from "../search/long-line.ts"
import { locateRipgrep } from "../search/ripgrep-binary.ts"
import { RipgrepFailed, RipgrepPatternError, RipgrepUnavailable, searchWithRipgrep } from "../search/ripgrep-search.ts"
import type { FileResult, IncludeFilter, LineText, OutputMode, SearchOutcome, SearchRequest, SearchTarget } from "../search/search-types.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { DEFAULT_IGNORED_DIRS, makeIgnoreOracle } from "../workspace/ignore-rules.ts"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { readStillAt, stillAt } from "../workspace/checked-fs.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./grep.md" with { type: "text" }
import { GREP_DEFAULTS } from "../config/sections/tools.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"



const grepSettings = Effect.gen(function* () {
  const config = yield* Config
  const get = (key: keyof typeof GREP_DEFAULTS) => config.count(`tools.grep.${key}`, GREP_DEFAULTS[key])
  const limit = get("max_matches_limit")
  const engine = config.get("tools.grep.engine", "auto")
  const rgPath = config.env.ANVIL_RG_PATH ?? config.get("tools.grep.rg_path", "")
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(config.env)) if (typeof v === "string") env[k] = v
  return {
    engine: engine === "builtin" ? ("builtin" as const) : ("auto" as const),
    rgPath: rgPath === "" ? undefined : rgPath,
    /** rg's environment: anvil's own. */
    rgEnv: env,
    maxMatchesLimit: limit,
    defaultMaxMatches: Math.min(get("default_max_matches"), limit),
    timeoutMs: get("timeout_ms"),
    maxLineLength: get("max_line_length"),
    maxContext: get("max_context"),
    maxStoredLines: get("max_stored_lines"),
    maxEntries: get("max_entries"),
    ignoredDirs: new Set(
      config.get("search.default_ignore", DEFAULT_IGNORED_DIRS as ReadonlyArray<unknown>).filter((n): n is string => typeof n === "string"),
    ),
  }
})

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
const joinDisplay = (base: string, rel: string) => (base === "." ? rel : `${base}/${rel}`)
const parentDisplay = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : ".")

/** An include glob as ripgrep `--glob`s, when ripgrep reads it the same way (or more broadly: the results are re-checked). */
const rgGlobsFor = (matcher: GlobMatcher): ReadonlyArray<string> | undefined =>
  matcher.expanded.some((p) => p.startsWith("!") || p.includes("\\") || p.includes("[:") || p.includes("[=") || p.includes("[."))
    ? undefined
    : matcher.expanded

const SNIFF = 64 * 1024

/** grep: regex search of file contents, ripgrep first. */
export const grepTool = defineTool({
  name: "grep",
  title: "Grep",
  description,
  aliases: ["search_code", "search_content", "rg"],
  parameterAliases: {
    glob: "include",
    file_pattern: "include",
    head_limit: "max_matches",
    limit: "max_matches",
    "-B": "before_context",
    "-A": "after_context",
    "-C": "context",
  },
  readOnly: true,
  parameters: Schema.Struct({
    pattern: Schema.String.annotate({ description: "Rust regex (no look-around or backreferences); escape literal `.(){}[]`." }),
    path: Schema.optionalKey(Schema.String.annotate({ description: 'File or folder (default ".").' })),
    include: Schema.optionalKey(
      Schema.String.annotate({ description: 'Glob of files: "*.ts" (any depth), "src/**/*.py".' }),
    ),
    case_sensitive: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default false." })),
    output_mode: Schema.optionalKey(
      Schema.Literals(["content", "files_with_matches", "count"]).annotate({
        description: "content (default: lines), files_with_matches (paths), count (per file).",
      }),
    ),
    before_context: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines before each match." }),
    ),
    after_context: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines after each match." }),
    ),
    context: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines around each match." }),
    ),
    max_matches: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Most lines (or files, or counts) returned (default 200)." }),
    ),
  }),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const ws = yield* Workspace
      const fs = yield* FileSystem
      const path = yield* Path
      const settings = yield* grepSettings
      const mode: OutputMode = params.output_mode ?? "content"
      const caseSensitive = params.case_sensitive ?? false
      const requestedMax = params.max_matches ?? settings.defaultMaxMatches
      const maxMatches = Math.min(requestedMax, settings.maxMatchesLimit)
      const before = mode === "content" ? Math.min(params.before_context ?? params.context ?? 0, settings.maxContext) : 0
      const after = mode === "content" ? Math.min(params.after_context ?? params.context ?? 0, settings.maxContext) : 0

      let include: IncludeFilter | undefined
      if (params.include !== undefined && params.include.trim() !== "") {
        const problem = strictPatternProblem(params.include)
        if (problem !== undefined) return yield* invalidParam("include", problem)
        const matcher = yield* Effect.try({
          try: () => GlobMatcher.compile(params.include!, { dot: true, matchBase: true }),
          catch: (e) => invalidParam("include", e instanceof GlobPatternError ? e.message : String(e)),
        })
        const rgGlobs = rgGlobsFor(matcher)
        include = { matcher, ...(rgGlobs ? { rgGlobs } : {}) }
      }

      // Where to search.
      const resolved = yield* ws.resolve(params.path ?? ".")
      const shown = resolved.display
      if (!resolved.exists) {
        return yield* toolError("NOT_FOUND", `No such file or directory: ${shown}`, {
          hints: [hint("LS", "medium", { path: parentDisplay(shown) }), hint("Glob", "medium", { pattern: `**/${shown.split("/").pop()}` })],
          context: { path_resolved: shown },
        })
      }
      if (shown.split("/").includes(".git") || ws.display(resolved.real).split("/").includes(".git")) {
        return yield* toolError("INVALID_PARAM", "Invalid parameter 'path': grep never searches inside .git; use the git tools.", {
          fieldErrors: [{ field: "path", message: "inside .git" }],
          hints: [hint("GitLog", "medium", {})],
        })
      }
      const info = yield* fs.stat(resolved.real).pipe(Effect.mapError((e) => fromPlatformError(e, shown)))
      if (info.type !== "Directory" && info.type !== "File") {
        return yield* toolError("INVALID_PARAM", `Invalid parameter 'path': ${shown} is not a regular file or a folder.`, {
          fieldErrors: [{ field: "path", message: "not a regular file or folder" }],
          context: { path_resolved: shown },
        })
      }
      const isFile = info.type === "File"
      const target: SearchTarget = isFile ? { dir: path.dirname(resolved.real), file: path.basename(resolved.real) } : { dir: resolved.real }
      const baseDisplay = isFile ? parentDisplay(shown) : shown

      if (isFile) {
        const head = yield* fs.stream(resolved.real, { bytesToRead: SNIFF }).pipe(
          Stream.runCollect,
          Effect.map((chunks) => Buffer.concat(chunks)),
          Effect.mapError((e) => fromPlatformError(e, shown)),
        )
        if (decodeForSearch(head) === undefined) {
          return yield* toolError("BINARY_FILE", `${shown} is a binary file (it contains NUL bytes); grep searches text.`, {
            context: { path_resolved: shown },
          })
        }
      }

      const started = yield* Clock.currentTimeMillis
      const request: SearchRequest = {
        pattern: params.pattern,
        caseSensitive,
        mode,
        before,
        after,
        ...(include ? { include } : {}),
        keepPerFile: mode === "content" ? maxMatches : 0,
        maxStoredLines: settings.maxStoredLines,
        deadline: started + settings.timeoutMs,
        ignoredDirs: settings.ignoredDirs,
        maxEntries: settings.maxEntries,
      }

      const patternError = (message: string, reason: string, unsupported = false) =>
        toolError("INVALID_PARAM", `Invalid regex pattern: ${message}`, {
          fieldErrors: [{ field: "pattern", message: reason }],
          hints: [
            hint("Grep", "high", {
              pattern: unsupported ? "<pattern without that construct>" : "<corrected pattern>",
              ...(params.path ? { path: params.path } : {}),
            }),
          ],
          ...(unsupported ? { details: "The built-in search (ripgrep is not available) cannot run this construct faithfully." } : {}),
        })

      // ripgrep first; the in-process search when no rg can run.
      let fallbackReason: string | undefined
      let outcome: SearchOutcome | undefined
      if (settings.engine === "builtin") fallbackReason = "ripgrep is disabled by configuration (tools.grep.engine: builtin)"
      else {
        const rg = settings.rgPath ?? (yield* locateRipgrep)
        if (rg === undefined) fallbackReason = "ripgrep was not found"
        else {
          const attempt = yield* searchWithRipgrep(rg, request, target, settings.rgEnv).pipe(Effect.result)
          if (attempt._tag === "Success") outcome = attempt.success
          else {
            const failure = attempt.failure
            if (failure instanceof RipgrepPatternError) return yield* patternError(failure.message, failure.reason)
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
        const fallback = yield* searchInProcess(request, target, ws.root).pipe(Effect.result)
        if (fallback._tag === "Failure") {
          const e = fallback.failure
          if (e instanceof FallbackPatternError) return yield* patternError(e.message, e.message, e.unsupported)
          return yield* Effect.die(e)
        }
        outcome = fallback.success
      } else if (include !== undefined && !isFile) {
        // ripgrep's --glob whitelists beat ignore files; anvil's include does not: re-check with anvil's own rules.
        const oracle = include.rgGlobs ? yield* makeIgnoreOracle(ws.root, target.dir, settings.ignoredDirs) : undefined
        const kept: Array<FileResult> = []
        for (const f of outcome.files) {
          if (!matchesPath(include.matcher, f.path)) continue
          if (oracle && (yield* oracle.isIgnored(f.path))) continue
          kept.push(f)
        }
        outcome = { ...outcome, files: kept }
      }
      if (isFile && include !== undefined && !matchesPath(include.matcher, target.file!)) outcome = { ...outcome, files: [] }

      // Newest files first, then by path. rg stats the files while it searches; the rest are stat'ed here.
      const found = outcome.files
      const unstamped = found.filter((f) => f.mtime === undefined)
      if (unstamped.length > 0) {
        const times = yield* (yield* BulkFs).mtimes(unstamped.map((f) => path.join(target.dir, f.path)))
        for (let i = 0; i < unstamped.length; i++) unstamped[i]!.mtime = times[i] ?? 0
      }
      // Only the files that can be shown are put in order: max_matches of them, or in content mode enough
      // for max_matches lines (every file with lines has one at least).
      const showable = mode === "content" ? maxMatches + found.filter((f) => f.lines.length === 0).length : maxMatches
      // Each file about to be shown is re-opened and must still be where the search found it (no folder on the way
      // swapped for a link out of the root while the search ran); the others are dropped unseen.
      // Lines shown must also be in the file as it is now: the engine may have read it through a link
      // that was swapped back since.
      const shownFiles = firstInOrder(found, showable, (a, b) => b.mtime! - a.mtime! || comparePaths(a.path, b.path))
        .filter((f) => stillHolds(ws.contains, path.join(target.dir, f.path), f))
        .map((f) => ({ f, display: joinDisplay(baseDisplay, f.path) }))

      const stopped = outcome.stoppedBy
      let totalLines = 0
      for (const f of found) totalLines += f.matchedLines
      const totalFiles = found.length
      const lowerBound = stopped !== undefined

      if (stopped === "timeout" && totalFiles === 0) {
        return yield* toolError("TIMEOUT", `The search for '${params.pattern}' in '${shown}' found nothing before the ${settings.timeoutMs} ms timeout.`, {
          retryable: true,
          hints: [
            hint("Grep", "high", { pattern: params.pattern, path: "<narrower folder>", ...(params.include ? { include: params.include } : { include: "*.<ext>" }) }),
          ],
          context: { path_resolved: shown },
        })
      }

      const cut = (text: string, column: number) => cutLongLine(text, column, settings.maxLineLength)
      const cutContext = (lines: ReadonlyArray<LineText>) => lines.map((l) => ({ line: l.line, text: cut(l.text, 0) }))
      const withContext = before > 0 || after > 0

      let data: Record<string, unknown>
      let bodyLines: Array<string>
      let shownCount: number
      let totalUnits: number
      if (mode === "content") {
        const matches: Array<Record<string, unknown>> = []
        bodyLines = []
        outer: for (const s of shownFiles) {
          let lastLine = -1
          let fileHeader = false
          for (const m of s.f.lines) {
            if (matches.length >= maxMatches) break outer
            const text = cut(m.text, m.column)
            matches.push({
              file: s.display,
              line: m.line,
              text,
              ...(withContext ? { before_context: cutContext(m.before), after_context: cutContext(m.after) } : {}),
            })
            if (!withContext) {
              bodyLines.push(`- ${s.display}:${m.line} | ${text}`)
              continue
            }
            if (!fileHeader) {
              bodyLines.push(`${bodyLines.length > 0 ? "\n" : ""}${s.display}`)
              fileHeader = true
            }
            const block = [...m.before.map((l) => ({ ...l, match: false })), { line: m.line, text: m.text, match: true }, ...m.after.map((l) => ({ ...l, match: false }))]
            for (const l of block) {
              if (l.line <= lastLine) continue
              if (lastLine !== -1 && l.line > lastLine + 1) bodyLines.push("  --")
              bodyLines.push(l.match ? `  ${l.line}: ${text}` : `  ${l.line}- ${cut(l.text, 0)}`)
              lastLine = l.line
            }
          }
        }
        shownCount = matches.length
        totalUnits = totalLines
        data = { matches, total_matches: totalLines, total_files: totalFiles }
      } else if (mode === "files_with_matches") {
        const files = shownFiles
        shownCount = files.length
        totalUnits = totalFiles
        bodyLines = files.map((s) => `- ${s.display} (${plural(s.f.matchedLines, "matching line")})`)
        data = { files: files.map((s) => s.display), total_files: totalFiles, total_matches: totalLines }
      } else {
        const files = shownFiles
        shownCount = files.length
        totalUnits = totalFiles
        bodyLines = files.map((s) => `- ${s.display}: ${s.f.matchedLines}`)
        data = { counts: files.map((s) => ({ file: s.display, count: s.f.matchedLines })), total_files: totalFiles, total_matches: totalLines }
      }
      const truncated = shownCount < totalUnits
      const status = truncated || stopped !== undefined || fallbackReason !== undefined ? "partial" : "success"
      const unit = mode === "content" ? "Matches" : "Files"
      const flags = `${lowerBound ? " (LOWER BOUND)" : ""}${truncated ? " (TRUNCATED)" : ""}`

      const head: Array<string> = [`Path: ${shown}${include ? ` (include: ${params.include})` : ""}`]
      if (totalFiles === 0) {
        head.push(`No matches for '${params.pattern}' (${caseSensitive ? "case-sensitive" : "case-insensitive"})${stopped ? " before the search stopped" : ""}.`)
      } else {
        head.push(
          `${unit} shown: ${shownCount} of ${totalUnits}${flags}` +
            (mode === "content" ? ` in ${plural(totalFiles, "file")}` : ` (${plural(totalLines, "matching line")})`),
        )
        head.push("(files ordered by modification time, newest first)")
      }
      if (fallbackReason !== undefined) head.push(`(${fallbackReason}; used the slower built-in search instead.)`)
      if (stopped === "timeout") head.push(`(Search stopped at the ${settings.timeoutMs} ms timeout; results and totals are incomplete.)`)
      if (stopped === "collect_limit") head.push(`(Search stopped after ${settings.maxStoredLines} matching lines; totals are lower bounds.)`)
      if (stopped === "max_entries") head.push(`(Search stopped after visiting ${settings.maxEntries} entries; results are incomplete.)`)
      if (requestedMax > maxMatches) head.push(`(max_matches ${requestedMax} capped at ${settings.maxMatchesLimit})`)
      if (totalFiles === 0) head.push("Searched: hidden files included; .git, binary files, ignored files (.gitignore/.ignore) and node_modules/build/dist/… skipped.")
      if (outcome.warnings.length > 0) head.push(`Warnings: ${outcome.warnings.slice(0, 5).join("; ")}`)
      const text = bodyLines.length > 0 ? `${head.join("\n")}\n\n${bodyLines.join("\n")}` : head.join("\n")

      const hints: Array<RetrievalHint> = []
      const first = shownFiles[0]
      if (truncated || lowerBound) {
        if (mode === "content" && first?.f.lines[0]) {
          hints.push(hint("Read", "high", { path: first.display, offset: Math.max(0, first.f.lines[0].line - 20), limit: 120 }))
        }
        hints.push(
          hint("Grep", "medium", {
            pattern: params.pattern,
            path: shown,
            ...(params.include ? { include: params.include } : {}),
            output_mode: mode === "content" ? "files_with_matches" : mode,
            ...(mode === "content" ? {} : { max_matches: settings.maxMatchesLimit }),
          }),
        )
        hints.push(hint("Grep", "low", { pattern: params.pattern, path: "<narrower folder>", include: params.include ?? "*.<ext>" }))
      }

      const result: ToolResult = {
        status,
        header: `Grep (${mode}): ${params.pattern}`,
        data: {
          ...data,
          truncated,
          total_matches_is_lower_bound: lowerBound,
          engine,
          ...(fallbackReason !== undefined ? { fallback: "builtin", fallback_reason: fallbackReason } : {}),
          ...(stopped ? { aborted_reason: stopped } : {}),
          search_path: shown,
        },
        text,
        stats: {
          total_matches: totalLines,
          total_files: totalFiles,
          returned: shownCount,
          ...(outcome.filesSearched !== undefined ? { files_searched: outcome.filesSearched } : {}),
          engine,
        },
        context: { path_resolved: shown, sorted_by: "mtime_desc" },
        hints,
        ...(truncated || lowerBound
          ? { truncation: { reason: [truncated ? "match_limit" : "", stopped ?? ""].filter(Boolean).join(","), total_estimate: totalUnits } }
          : {}),
      }
      return result
    })),
})

/** Files bigger than this are checked for place only when their hits are shown. */
const RECHECK_MAX_BYTES = 16 * 1024 * 1024

/** Whether a hit file is still inside the root where it was found and still holds every line about to be shown. */
const stillHolds = (contains: (p: string) => boolean, file: string, f: FileResult): boolean => {
  if (!contains(file)) return false
  if (f.lines.length === 0) return stillAt(file)
  const bytes = readStillAt(file, RECHECK_MAX_BYTES)
  if (bytes === undefined) return false
  if (bytes === "large") return true
  const text = decodeForSearch(bytes) ?? new TextDecoder().decode(bytes)
  return f.lines.every((m) => text.includes(m.text) && m.before.every((l) => text.includes(l.text)) && m.after.every((l) => text.includes(l.text)))
}
