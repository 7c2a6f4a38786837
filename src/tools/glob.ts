import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { SEARCH_DEFAULTS } from "../config/sections/search.ts"
import { GLOB_DEFAULTS } from "../config/sections/tools.ts"
import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import { counted } from "../protocol/plural.ts"
import { invalidParam } from "../protocol/tool-error.ts"
import { globDisplay, globFiles, GLOB_SERVICES, type GlobResult } from "../search/glob-files.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import description from "./glob.md" with { type: "text" }
import { withGlobErrors } from "./search-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { refuseHiddenRoot, searchHidden } from "./hidden-search.ts"



const globSettings = Effect.gen(function* () {
  const config = yield* Config
  const get = (key: keyof typeof GLOB_DEFAULTS) => config.count(`tools.glob.${key}`, GLOB_DEFAULTS[key])
  const maxLimit = get("max_limit")
  const ignoredDirs = config
    .get("search.default_ignore", SEARCH_DEFAULTS.default_ignore as ReadonlyArray<unknown>)
    .filter((n): n is string => typeof n === "string")
  return {
    maxLimit,
    defaultLimit: Math.min(get("default_limit"), maxLimit),
    maxEntries: get("max_entries"),
    maxDurationMs: get("max_duration_ms"),
    ignoredDirs: new Set(ignoredDirs),
  }
})

const STOP_TEXT: Record<NonNullable<GlobResult["stopped"]>, (s: { maxEntries: number; maxDurationMs: number }) => string> = {
  max_entries: (s) => `the search stopped after visiting ${s.maxEntries.toLocaleString("en-US")} entries (circuit breaker)`,
  timeout: (s) => `the search stopped after ${s.maxDurationMs.toLocaleString("en-US")} ms (circuit breaker)`,
}

const joinDisplay = globDisplay

/** glob: files by bash globstar pattern, relative to `path`, paths relative to the root. */
export const globTool = defineTool({
  name: "glob",
  requires: GLOB_SERVICES,
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
  // What `read` may not open is not listed either: a glob rooted there is refused as read refuses it.
  precheck: (params) => refuseHiddenRoot("glob", params.path ?? "."),
  run: (params) =>
    Effect.gen(function* () {
      const settings = yield* globSettings
      const hidden = yield* searchHidden("glob")
      const includeHidden = params.include_hidden ?? false
      const includeIgnored = params.include_ignored ?? false
      const sortBy = params.sort_by ?? "path"
      const offset = params.offset ?? 0
      const requested = params.limit ?? settings.defaultLimit
      const limit = Math.min(requested, settings.maxLimit)
      const globbed = yield* withWorkspaceErrors(
        withGlobErrors(
          globFiles({
            pattern: params.pattern,
            path: params.path ?? ".",
            includeHidden,
            includeIgnored,
            sortBy,
            ignoredDirs: settings.ignoredDirs,
            maxEntries: settings.maxEntries,
            maxDurationMs: settings.maxDurationMs,
            hidden,
          }),
          params,
        ),
      )
      const { shown, paths: ordered } = globbed

      const total = ordered.length
      // Past the last match is a wrong offset, as it is for read and list: said with the page that exists.
      if (total > 0 && offset >= total) {
        const last = Math.floor((total - 1) / limit) * limit
        return yield* invalidParam("offset", `offset ${offset} is past the end of the ${counted(total, "match", "matches")} for '${params.pattern}' in '${shown}'.`, [
          hint("Glob", "high", { pattern: params.pattern, path: shown, offset: last, limit }),
        ])
      }
      const page = ordered.slice(offset, offset + limit).map((rel) => joinDisplay(shown, rel))
      const more = offset + page.length < total
      const stopped = globbed.stopped
      // Folders that could not be read leave the answer incomplete: a partial failure.
      const status = more || stopped !== undefined || globbed.unreadable.length > 0 ? "partial" : "success"

      const lines: Array<string> = [`Path: ${shown}`]
      if (total === 0) {
        lines.push(`No ${stopped ? "matches found before the search stopped" : "files match"} '${params.pattern}' in '${shown}'.`)
      } else {
        const range = page.length === total ? `${total}` : `${offset + 1}-${offset + page.length} of ${total}`
        lines.push(`Matches shown: ${range}${more ? " (TRUNCATED)" : ""}${stopped ? " (INCOMPLETE)" : ""} (sorted by ${sortBy === "mtime" ? "modification time, newest first" : "path"})`)
      }
      if (stopped) lines.push(`Stopped early: ${STOP_TEXT[stopped](settings)}; matches beyond that point are missing.`)
      if (requested > limit) lines.push(`(limit ${requested} capped at the maximum of ${settings.maxLimit})`)
      const skipped = [
        ...(includeHidden ? [] : ["hidden entries (include_hidden=false)"]),
        ...(includeIgnored ? [] : ["ignored entries (.gitignore/.ignore, node_modules, build, dist, …; include_ignored=false)"]),
        ...(hidden ? ["paths the permission rules deny reading"] : []),
      ]
      if (skipped.length > 0 && (total === 0 || stopped)) lines.push(`Skipped: ${skipped.join("; ")}.`)
      if (globbed.unreadable.length > 0) {
        const more = globbed.unreadable.length > 5 ? `, and ${globbed.unreadable.length - 5} more (data.unreadable)` : ""
        lines.push(`Could not read ${globbed.unreadable.length} folder(s): ${globbed.unreadable.slice(0, 5).map((r) => joinDisplay(shown, r)).join(", ")}${more}`)
      }
      const body = page.length > 0 ? `${lines.join("\n")}\n\n${page.map((p) => `- ${p}`).join("\n")}` : lines.join("\n")

      const hints: Array<RetrievalHint> = []
      if (more) {
        hints.push(hint("Glob", "high", { pattern: params.pattern, path: shown, offset: offset + page.length, limit: settings.maxLimit }))
      }
      if (stopped) hints.push(hint("Glob", more ? "medium" : "high", { pattern: params.pattern, path: "<narrower sub-folder>" }))
      if (more && page.length > 0) hints.push(hint("Read", "low", { path: page[0] }))
      // Folders that could not be read: their owner and mode say why.
      const unreadable = globbed.unreadable.slice(0, 3).map((r) => joinDisplay(shown, r))
      if (unreadable.length > 0) hints.push(hint("Bash", "low", { command: `ls -ld ${unreadable.map(shellQuote).join(" ")}` }))

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
          ...(globbed.unreadable.length > 0 ? { unreadable: globbed.unreadable.map((r) => joinDisplay(shown, r)) } : {}),
        },
        text: body,
        stats: {
          total_matches: total,
          returned: page.length,
          visited_entries: globbed.visited,
          directories: globbed.directories,
        },
        context: { path_resolved: shown },
        hints,
        ...(more || stopped
          ? { truncation: { reason: [more ? "result_limit" : "", stopped ? `circuit_breaker:${stopped}` : ""].filter(Boolean).join(","), total_estimate: total } }
          : {}),
        // A page that leaves paths after it: every path is saved, one a line in the same order, so none is lost.
        ...(more && page.length > 0
          ? {
              full: {
                text: ordered.map((rel) => joinDisplay(shown, rel)).join("\n"),
                what: `${total} paths${stopped ? " found before the search stopped" : ""}, one a line`,
                shownFrom: offset,
                shownLines: offset + page.length,
                data: { paths: ordered.map((rel) => joinDisplay(shown, rel)), truncated: false, offset: 0 },
              },
            }
          : {}),
      }
      return result
    }),
})
