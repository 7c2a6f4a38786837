import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { SEARCH_DEFAULTS } from "../config/sections/search.ts"
import { LIST_DEFAULTS } from "../config/sections/tools.ts"
import { listFolder, type ListEntry, type ListedEntry } from "../files/list-folder.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import description from "./list.md" with { type: "text" }
import { withFilesErrors } from "./files-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { refuseHiddenRoot, searchHidden } from "./hidden-search.ts"
import { counted } from "../protocol/plural.ts"

/** One listed entry (the shape of `data.entries`). */
export type { ListEntry }

/** list: one folder's entries, folders first, paginated. */
export const listTool = defineTool({
  name: "list",
  title: "LS",
  description,
  aliases: ["ls", "list_files", "list_dir", "list_directory"],
  parameterAliases: {
    head_limit: "limit",
    dir_path: "path",
    directory: "path",
    dir: "path",
    show_hidden: "include_hidden",
    hidden: "include_hidden",
    no_ignore: "include_ignored",
  },
  readOnly: true,
  paginates: true,
  parameters: Schema.Struct({
    path: Schema.optionalKey(Schema.String.annotate({ description: 'Folder (default ".").' })),
    offset: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Entries to skip (paging)." }),
    ),
    limit: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Default 100, max 200." })),
    include_hidden: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Also dotfiles and node_modules, dist, …." }),
    ),
    include_ignored: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Also .gitignore'd entries." }),
    ),
    ignore: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({ description: 'Globs to leave out, against name or path ("*.pyc", "build"; ending in /: folders only).' }),
    ),
    sort_by: Schema.optionalKey(
      Schema.Literals(["name", "mtime", "size"]).annotate({ description: "Default name; mtime, size: largest/newest first." }),
    ),
  }),
  // What `read` may not open is not listed either: a listing of a denied folder is refused as read refuses it.
  precheck: (params) => refuseHiddenRoot("list", params.path ?? "."),
  run: (params) =>
    Effect.gen(function* () {
      const config = yield* Config
      const maxLimit = config.count("tools.list.max_limit", LIST_DEFAULTS.max_limit)
      const defaultLimit = Math.min(config.count("tools.list.default_limit", LIST_DEFAULTS.default_limit), maxLimit)
      const hiddenNames = new Set(
        config
          .get("tools.list.default_ignore", config.get("search.default_ignore", SEARCH_DEFAULTS.default_ignore as ReadonlyArray<unknown>))
          .filter((n): n is string => typeof n === "string"),
      )
      const sortBy = params.sort_by ?? "name"
      const offset = params.offset ?? 0
      const limit = Math.min(params.limit ?? defaultLimit, maxLimit)
      const folder = yield* withWorkspaceErrors(withFilesErrors(
        listFolder({
          path: params.path ?? ".",
          offset,
          limit,
          includeHidden: params.include_hidden ?? false,
          includeIgnored: params.include_ignored ?? false,
          ignore: params.ignore ?? [],
          sortBy,
          hiddenNames,
          denied: yield* searchHidden("list"),
        }),
      ))
      const { shown, entries, total, dirs, files, links, hidden, matchedIgnore, gitIgnored } = folder
      // An entry of the saved complete list may lack size and time (sorted by name, only the page is stat'ed).
      const line = (e: ListedEntry, mtimeMs: number | undefined): string => {
        const when = sortBy === "mtime" && mtimeMs !== undefined ? `, modified ${new Date(mtimeMs).toISOString().replace(/\.\d+Z$/, "Z")}` : ""
        if (e.type === "dir") return `- [DIR] ${e.name}/${when ? ` (${when.slice(2)})` : ""}`
        if (e.type === "link") return `- [LINK] ${e.name}@${e.target_type === "dir" ? "/" : ""} -> ${e.target}`
        const about = e.kind ?? (e.size !== undefined ? `size=${e.size}` : "")
        return `- [FILE] ${e.name}${about || when ? ` (${about}${about ? when : when.slice(2)})` : ""}`
      }

      const shownCount = entries.length
      const hasMore = offset + shownCount < total
      const truncated = shownCount < total
      const nextOffset = hasMore ? offset + shownCount : null
      const order = sortBy === "name" ? "sorted by name" : sortBy === "mtime" ? "newest first" : "largest first"
      const range = shownCount === 0 ? "0" : `${offset + 1}-${offset + shownCount}`
      const headline = `Entries shown: ${range} of ${total} (directories first, ${order})${truncated ? " (TRUNCATED)" : ""}`
      const notHidden = hidden > 0 ? ` ${counted(hidden, "hidden or default-ignored entry", "hidden or default-ignored entries")} not shown (include_hidden=true shows them).` : ""
      const notIgnored =
        (matchedIgnore > 0 ? ` ${matchedIgnore} matched the ignore patterns.` : "") +
        (gitIgnored > 0 ? ` ${gitIgnored} ignored by .gitignore not shown (include_ignored=true shows them).` : "")
      const totals = `Totals: ${counted(dirs, "dir")}, ${counted(files, "file")}, ${counted(links, "link")}.${notHidden}${notIgnored}`
      // A larger limit is capped, and said, as glob and read say it.
      const capped = (params.limit ?? 0) > limit ? `\n(limit ${params.limit} capped at the maximum of ${maxLimit})` : ""
      const warnings: Array<string> = []
      if (hasMore) warnings.push(`Results truncated to entries ${range} of ${total}. Use offset=${nextOffset} to see the next page.`)
      else if (truncated) warnings.push(`Showing entries ${range} of ${total}; earlier entries are on previous pages (offset=0).`)
      const body = shownCount === 0 ? (total === 0 && hidden + matchedIgnore + gitIgnored === 0 ? "(empty directory)" : "(nothing to show)") : entries.map((e, i) => line(e, folder.mtimesMs[i]!)).join("\n")

      const hints: Array<RetrievalHint> = []
      if (hasMore) hints.push(hint("LS", "high", { path: shown, offset: nextOffset, limit }))
      else if (truncated) hints.push(hint("LS", "high", { path: shown, offset: Math.max(0, offset - limit), limit }))

      const result: ToolResult = {
        status: truncated ? "partial" : "success",
        header: `LS: ${shown}`,
        text: [[headline, totals].join("\n") + capped, body, ...warnings].join("\n\n"),
        data: { path: shown, entries, truncated, has_more: hasMore, next_offset: nextOffset, offset, limit, sort_by: sortBy, warnings },
        stats: { total_entries: total, dirs, files, links, hidden, ignored: matchedIgnore, gitignored: gitIgnored, shown: shownCount },
        context: { path_resolved: shown },
        hints,
        ...(truncated ? { truncation: { reason: "entry_limit", total_estimate: total } } : {}),
        // A page of a longer listing: every entry is saved, one a line in the same order, so none is lost.
        ...(folder.all && shownCount > 0
          ? {
              full: {
                text: folder.all.map((e) => line(e, e.mtime !== undefined ? e.mtime * 1000 : undefined)).join("\n"),
                what: `${total} entries, one a line`,
                shownFrom: offset,
                shownLines: offset + shownCount,
                // The saved listing is whole: page fields as for one page holding every entry.
                data: { entries: folder.all, truncated: false, has_more: false, next_offset: null, offset: 0, limit: total, warnings: [] },
              },
            }
          : {}),
      }
      return result
    }),
})
