import { Clock, Effect, Schema } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Config } from "../config/config.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { comparePaths, GlobMatcher, GlobPatternError, type GlobState } from "../search/glob-pattern.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { DEFAULT_IGNORED_DIRS } from "../workspace/ignore-rules.ts"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { type StopReason, walk } from "../workspace/walk.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./glob.md" with { type: "text" }
import { GLOB_DEFAULTS } from "../config/sections/tools.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"



const globSettings = Effect.gen(function* () {
  const config = yield* Config
  const get = (key: keyof typeof GLOB_DEFAULTS) => config.count(`tools.glob.${key}`, GLOB_DEFAULTS[key])
  const maxLimit = get("max_limit")
  const ignoredDirs = config
    .get("search.default_ignore", DEFAULT_IGNORED_DIRS as ReadonlyArray<unknown>)
    .filter((n): n is string => typeof n === "string")
  return {
    maxLimit,
    defaultLimit: Math.min(get("default_limit"), maxLimit),
    maxEntries: get("max_entries"),
    maxDurationMs: get("max_duration_ms"),
    ignoredDirs: new Set(ignoredDirs),
  }
})

const STOP_TEXT: Record<StopReason, (s: { maxEntries: number; maxDurationMs: number }) => string> = {
  max_entries: (s) => `the search stopped after visiting ${s.maxEntries.toLocaleString("en-US")} entries (circuit breaker)`,
  timeout: (s) => `the search stopped after ${s.maxDurationMs.toLocaleString("en-US")} ms (circuit breaker)`,
}

const joinDisplay = (base: string, rel: string) => (base === "." ? rel : `${base}/${rel}`)

/** glob: files by bash globstar pattern, relative to `path`, paths relative to the root. */
export const globTool = defineTool({
  name: "glob",
  requires: [BulkFs],
  title: "Glob",
  description,
  aliases: ["search_files_by_name", "find_files"],
  parameterAliases: { head_limit: "limit", max_results: "limit", sort: "sort_by", hidden: "include_hidden", no_ignore: "include_ignored" },
  readOnly: true,
  parameters: Schema.Struct({
    pattern: Schema.String.annotate({
      description: 'Glob relative to `path`.',
    }),
    path: Schema.optionalKey(Schema.String.annotate({ description: 'Folder (default ".").' })),
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Default 50, max 200." }),
    ),
    offset: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Paths to skip (paging)." }),
    ),
    include_hidden: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Also names starting with '.'." }),
    ),
    include_ignored: Schema.optionalKey(
      Schema.Boolean.annotate({
        description: "Also ignored entries (.gitignore, node_modules, …).",
      }),
    ),
    sort_by: Schema.optionalKey(
      Schema.Literals(["path", "mtime"]).annotate({ description: "Default path; mtime: newest first." }),
    ),
  }),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const ws = yield* Workspace
      const fs = yield* FileSystem
      const settings = yield* globSettings
      const includeHidden = params.include_hidden ?? false
      const includeIgnored = params.include_ignored ?? false
      const sortBy = params.sort_by ?? "path"
      const offset = params.offset ?? 0
      const requested = params.limit ?? settings.defaultLimit
      const limit = Math.min(requested, settings.maxLimit)

      const matcher = yield* Effect.try({
        try: () => GlobMatcher.compile(params.pattern, { dot: includeHidden }),
        catch: (e) =>
          invalidParam("pattern", e instanceof GlobPatternError ? e.message : String(e), [
            hint("Glob", "high", { pattern: "**/*.<ext>", path: params.path ?? "." }),
          ]),
      })

      const resolved = yield* ws.resolve(params.path ?? ".")
      const shown = resolved.display
      if (!resolved.exists) {
        return yield* toolError("NOT_FOUND", `Directory not found: ${shown}`, {
          hints: [hint("LS", "medium", { path: shown.includes("/") ? shown.slice(0, shown.lastIndexOf("/")) : "." })],
          context: { path_resolved: shown },
        })
      }
      const info = yield* fs.stat(resolved.real).pipe(Effect.mapError((e) => fromPlatformError(e, shown)))
      if (info.type !== "Directory") {
        return yield* toolError("INVALID_PARAM", `Invalid parameter 'path': '${shown}' is a file, not a directory; glob searches folders.`, {
          fieldErrors: [{ field: "path", message: "not a directory" }],
          hints: [hint("Read", "high", { path: shown }), hint("Glob", "medium", { pattern: params.pattern, path: "." })],
          context: { path_resolved: shown },
        })
      }

      const started = yield* Clock.currentTimeMillis
      const found: Array<string> = []
      const summary = yield* walk<GlobState>({
        root: ws.root,
        start: resolved.real,
        initial: matcher.start(),
        includeIgnored,
        ignoredDirs: settings.ignoredDirs,
        maxEntries: settings.maxEntries,
        deadline: started + settings.maxDurationMs,
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
          file: (state, name, kind) => (kind === "other" ? undefined : matcher.matches(state, name, false)),
        },
        onEntry: (rel, kind) => found.push(kind === "dir" ? `${rel}/` : rel),
      })

      let ordered: Array<string>
      if (sortBy === "mtime") {
        const sep = resolved.real.endsWith("/") ? "" : "/"
        const times = yield* (yield* BulkFs).mtimes(found.map((p) => resolved.real + sep + p))
        const order = found.map((p, i) => ({ p, t: times[i] ?? 0 }))
        ordered = order.sort((a, b) => b.t - a.t || comparePaths(a.p, b.p)).map((x) => x.p)
      } else {
        // The walk reports in tree order already (comparePaths order).
        ordered = found
      }

      const total = ordered.length
      const page = ordered.slice(offset, offset + limit).map((rel) => joinDisplay(shown, rel))
      const more = offset + page.length < total
      const stopped = summary.stoppedBy
      const status = more || stopped !== undefined ? "partial" : "success"

      const lines: Array<string> = [`Path: ${shown}`]
      if (total === 0) {
        lines.push(`No ${stopped ? "matches found before the search stopped" : "files match"} '${params.pattern}' in '${shown}'.`)
      } else if (page.length === 0) {
        lines.push(`Matches: ${total}; offset ${offset} is past the last one.`)
      } else {
        const range = page.length === total ? `${total}` : `${offset + 1}-${offset + page.length} of ${total}`
        lines.push(`Matches shown: ${range}${more ? " (TRUNCATED)" : ""}${stopped ? " (INCOMPLETE)" : ""} (sorted by ${sortBy === "mtime" ? "modification time, newest first" : "path"})`)
      }
      if (stopped) lines.push(`Stopped early: ${STOP_TEXT[stopped](settings)}; matches beyond that point are missing.`)
      if (requested > limit) lines.push(`(limit ${requested} capped at the maximum of ${settings.maxLimit})`)
      const skipped = [
        ...(includeHidden ? [] : ["hidden entries (include_hidden=false)"]),
        ...(includeIgnored ? [] : ["ignored entries (.gitignore/.ignore, node_modules, build, dist, …; include_ignored=false)"]),
      ]
      if (skipped.length > 0 && (total === 0 || stopped)) lines.push(`Skipped: ${skipped.join("; ")}.`)
      if (summary.unreadable.length > 0) {
        lines.push(`Could not read ${summary.unreadable.length} folder(s): ${summary.unreadable.slice(0, 5).map((r) => joinDisplay(shown, r)).join(", ")}`)
      }
      const body = page.length > 0 ? `${lines.join("\n")}\n\n${page.map((p) => `- ${p}`).join("\n")}` : lines.join("\n")

      const hints: Array<RetrievalHint> = []
      if (more) {
        hints.push(hint("Glob", "high", { pattern: params.pattern, path: shown, offset: offset + page.length, limit: settings.maxLimit }))
      }
      if (stopped) hints.push(hint("Glob", more ? "medium" : "high", { pattern: params.pattern, path: "<narrower sub-folder>" }))
      if (more && page.length > 0) hints.push(hint("Read", "low", { path: page[0] }))

      const result: ToolResult = {
        status,
        header: `Glob: ${params.pattern}`,
        data: {
          paths: page,
          count: total,
          truncated: more,
          ...(offset > 0 ? { offset } : {}),
          search_path: shown,
          ...(stopped ? { aborted_reason: stopped, incomplete: true } : {}),
          ...(summary.unreadable.length > 0 ? { unreadable: summary.unreadable.map((r) => joinDisplay(shown, r)) } : {}),
        },
        text: body,
        stats: {
          total_matches: total,
          returned: page.length,
          visited_entries: summary.visited,
          directories: summary.directories,
        },
        context: { path_resolved: shown },
        hints,
        ...(more || stopped
          ? { truncation: { reason: [more ? "result_limit" : "", stopped ? `circuit_breaker:${stopped}` : ""].filter(Boolean).join(","), total_estimate: total } }
          : {}),
      }
      return result
    })),
})
