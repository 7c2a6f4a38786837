import { Effect, Option, Schema } from "effect"
import { readdirSync } from "node:fs"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { GlobMatcher, GlobPatternError, matchesPath } from "../search/glob-pattern.ts"
import { direntType, fdPath } from "../workspace/checked-fs.ts"
import { openCheckedScoped } from "../workspace/checked-open.ts"
import { fromErrno } from "../workspace/fs-error.ts"
import { ancestorRules, DEFAULT_IGNORED_DIRS, isIgnoredBy, loadDirRules } from "../workspace/ignore-rules.ts"
import { similarPaths } from "../workspace/similar-paths.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./list.md" with { type: "text" }
import { LIST_DEFAULTS } from "../config/sections/tools.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"


/** Where a symbolic link leads, as a listing shows it. */
export const OUTSIDE_SANDBOX = "<Outside Sandbox>"
export const BROKEN_LINK = "<Broken Link>"

/** One listed entry. */
export interface ListEntry {
  /** Root-relative POSIX path; folders end with "/". */
  readonly path: string
  readonly name: string
  readonly type: "file" | "dir" | "link"
  /** Bytes (0 for folders; a link's own size). */
  readonly size: number
  /** Modification time, epoch seconds. */
  readonly mtime: number
  /** For links: the target (root-relative), or <Outside Sandbox> / <Broken Link>. */
  readonly target?: string
  /** For links inside the sandbox: what the target is. */
  readonly target_type?: "file" | "dir"
  /** For special files: fifo, socket, block_device, character_device. */
  readonly kind?: string
}

interface Raw {
  readonly name: string
  readonly absolute: string
  readonly type: "file" | "dir" | "link"
  readonly kind?: string
  readonly target?: string
  readonly targetType?: "file" | "dir"
}

const SPECIAL: Record<string, string> = {
  FIFO: "fifo",
  Socket: "socket",
  BlockDevice: "block_device",
  CharacterDevice: "character_device",
}


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
      Schema.Array(Schema.String).annotate({ description: 'Globs to leave out, matched against name and path ("*.pyc").' }),
    ),
    sort_by: Schema.optionalKey(
      Schema.Literals(["name", "mtime", "size"]).annotate({ description: "Default name; mtime, size: largest/newest first." }),
    ),
  }),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const ws = yield* Workspace
      const fs = yield* FileSystem
      const path = yield* Path
      const config = yield* Config
      const maxLimit = config.count("tools.list.max_limit", LIST_DEFAULTS.max_limit)
      const defaultLimit = Math.min(config.count("tools.list.default_limit", LIST_DEFAULTS.default_limit), maxLimit)
      const hiddenNames = new Set(
        config
          .get("tools.list.default_ignore", config.get("search.default_ignore", DEFAULT_IGNORED_DIRS as ReadonlyArray<unknown>))
          .filter((n): n is string => typeof n === "string"),
      )
      const includeHidden = params.include_hidden ?? false
      const includeIgnored = params.include_ignored ?? false
      const patterns: Array<GlobMatcher> = []
      for (const [i, pattern] of (params.ignore ?? []).entries()) {
        if (pattern.trim() === "") continue
        try {
          patterns.push(GlobMatcher.compile(pattern, { dot: true }))
        } catch (e) {
          if (e instanceof GlobPatternError) return yield* invalidParam(`ignore.${i}`, `'${pattern}': ${e.message}`)
          throw e
        }
      }
      const sortBy = params.sort_by ?? "name"
      const offset = params.offset ?? 0
      const limit = Math.min(params.limit ?? defaultLimit, maxLimit)

      const resolved = yield* ws.resolve(params.path ?? ".")
      const shown = resolved.display
      const parentOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) || "/" : ".")
      const notFound = (why: string) =>
        Effect.gen(function* () {
          const suggestions = yield* similarPaths(resolved.absolute, { kind: "dir" })
          const hints: Array<RetrievalHint> = [
            ...suggestions.slice(0, 1).map((s) => hint("LS", "high", { path: s })),
            hint("LS", "medium", { path: parentOf(shown) }),
          ]
          return yield* toolError("NOT_FOUND", `Directory not found: ${shown}${why}`, {
            hints,
            context: { path_resolved: shown },
            ...(suggestions.length > 0 ? { details: `Did you mean:\n${suggestions.map((s) => `- ${s}`).join("\n")}` } : {}),
          })
        })
      if (!resolved.exists) return yield* notFound("")
      // The folder is opened first and its real place checked: a link swapped in after resolve() is never listed.
      const listing = yield* Effect.scoped(
        Effect.gen(function* () {
          const opened = yield* openCheckedScoped(ws.contains, resolved.absolute, params.path ?? ".", shown)
          if (opened === undefined) return yield* notFound(" (a symbolic link whose target does not exist)")
          if (!opened.stat.isDirectory()) {
            return yield* invalidParam("path", `${shown} is a file, not a directory. Use Read to see its contents.`, [
              hint("Read", "high", { path: shown }),
              hint("LS", "medium", { path: parentOf(shown) }),
            ])
          }
          return yield* Effect.try({
            try: () => readdirSync(fdPath(opened.fd), { withFileTypes: true }).map((d) => ({ name: d.name, type: direntType(d) })),
            catch: (e) => fromErrno((e as { code?: string }).code, shown, String(e)),
          })
        }),
      )
      const base = shown === "." ? "" : `${shown}/`
      const ignoredByGlob = (name: string, isDir: boolean) =>
        patterns.some((m) => matchesPath(m, name, isDir) || matchesPath(m, `${base}${name}`, isDir))
      // .gitignore / .ignore / .rgignore in force here, from the project root (or the enclosing repository) down.
      const rules = includeIgnored
        ? undefined
        : yield* loadDirRules(resolved.real, yield* ancestorRules(ws.root, resolved.real), new Set(listing.map((e) => e.name)))
      let hidden = 0
      let matchedIgnore = 0
      let gitIgnored = 0

      // Where a link leads, without following it out of the sandbox.
      const linkTarget = (absolute: string) =>
        Effect.gen(function* () {
          const text = yield* fs.readLink(absolute).pipe(Effect.option)
          if (Option.isSome(text) && !ws.contains(path.resolve(path.dirname(absolute), text.value))) return { target: OUTSIDE_SANDBOX }
          const real = yield* fs.realPath(absolute).pipe(Effect.option)
          if (Option.isNone(real)) return { target: BROKEN_LINK }
          if (!ws.contains(real.value)) return { target: OUTSIDE_SANDBOX }
          const st = yield* fs.stat(real.value).pipe(Effect.option)
          if (Option.isNone(st)) return { target: BROKEN_LINK }
          return { target: ws.display(real.value), targetType: st.value.type === "Directory" ? ("dir" as const) : ("file" as const) }
        })

      const visible = listing.filter((e) => {
        if (!includeHidden && (e.name.startsWith(".") || hiddenNames.has(e.name))) {
          hidden++
          return false
        }
        const isDir = e.type === "Directory"
        if (ignoredByGlob(e.name, isDir)) {
          matchedIgnore++
          return false
        }
        if (rules !== undefined && isIgnoredBy(rules, path.join(resolved.real, e.name), isDir)) {
          gitIgnored++
          return false
        }
        return true
      })
      const classify = (name: string, type: string): Raw | undefined => {
        const absolute = path.join(resolved.real, name)
        if (type === "Directory") return { name, absolute, type: "dir" }
        if (type === "SymbolicLink" || type === "Unknown") return undefined
        const kind = SPECIAL[type]
        return { name, absolute, type: "file", ...(kind ? { kind } : {}) }
      }
      // Only links (and entries of unknown type) cost a system call here.
      const raws = yield* Effect.forEach(
        visible,
        (e) => {
          const plain = classify(e.name, e.type)
          if (plain) return Effect.succeed(plain)
          return Effect.gen(function* () {
            const absolute = path.join(resolved.real, e.name)
            const type = e.type === "Unknown" ? yield* fs.lstat(absolute).pipe(Effect.map((s) => s.type), Effect.orElseSucceed(() => "File" as const)) : e.type
            if (type !== "SymbolicLink") return classify(e.name, type === "Unknown" ? "File" : type)!
            return { name: e.name, absolute, type: "link", ...(yield* linkTarget(absolute)) } satisfies Raw
          })
        },
        { concurrency: 16 },
      )

      const info = (r: Raw) =>
        fs.lstat(r.absolute).pipe(
          Effect.map((s) => ({
            size: r.type === "dir" ? 0 : Number(s.size),
            mtimeMs: Option.match(s.mtime, { onNone: () => 0, onSome: (d) => d.getTime() }),
          })),
          Effect.orElseSucceed(() => ({ size: 0, mtimeMs: 0 })),
        )
      const group = (r: Raw) => (r.type === "dir" || r.targetType === "dir" ? 0 : 1)
      const byName = (a: Raw, b: Raw) => group(a) - group(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

      // Sorting by name needs no stat; by mtime or size every entry is stat'ed.
      let page: ReadonlyArray<{ raw: Raw; size: number; mtimeMs: number }>
      if (sortBy === "name") {
        const sorted = [...raws].sort(byName).slice(offset, offset + limit)
        page = yield* Effect.forEach(sorted, (raw) => Effect.map(info(raw), (i) => ({ raw, ...i })), { concurrency: 16 })
      } else {
        const all = yield* Effect.forEach(raws, (raw) => Effect.map(info(raw), (i) => ({ raw, ...i })), { concurrency: 16 })
        const key = (x: (typeof all)[number]) => (sortBy === "mtime" ? x.mtimeMs : x.size)
        page = all.sort((a, b) => group(a.raw) - group(b.raw) || key(b) - key(a) || byName(a.raw, b.raw)).slice(offset, offset + limit)
      }

      const total = raws.length
      if (offset > 0 && offset >= total) {
        return yield* invalidParam("offset", `offset ${offset} is past the end of the listing of ${shown}, which has ${total} entries.`, [
          hint("LS", "high", { path: shown, offset: 0, limit }),
        ])
      }
      const dirs = raws.filter((r) => r.type === "dir").length
      const links = raws.filter((r) => r.type === "link").length
      const files = total - dirs - links

      const entries: Array<ListEntry> = page.map(({ raw, size, mtimeMs }) => ({
        path: `${base}${raw.name}${raw.type === "dir" ? "/" : ""}`,
        name: raw.name,
        type: raw.type,
        size,
        mtime: Math.floor(mtimeMs / 1000),
        ...(raw.target !== undefined ? { target: raw.target } : {}),
        ...(raw.targetType !== undefined ? { target_type: raw.targetType } : {}),
        ...(raw.kind !== undefined ? { kind: raw.kind } : {}),
      }))
      const line = (e: ListEntry, mtimeMs: number): string => {
        const when = sortBy === "mtime" ? `, modified ${new Date(mtimeMs).toISOString().replace(/\.\d+Z$/, "Z")}` : ""
        if (e.type === "dir") return `- [DIR] ${e.name}/${when ? ` (${when.slice(2)})` : ""}`
        if (e.type === "link") return `- [LINK] ${e.name}@${e.target_type === "dir" ? "/" : ""} -> ${e.target}`
        return `- [FILE] ${e.name} (${e.kind ?? `size=${e.size}`}${when})`
      }

      const shownCount = entries.length
      const hasMore = offset + shownCount < total
      const truncated = shownCount < total
      const nextOffset = hasMore ? offset + shownCount : null
      const order = sortBy === "name" ? "sorted by name" : sortBy === "mtime" ? "newest first" : "largest first"
      const range = shownCount === 0 ? "0" : `${offset + 1}-${offset + shownCount}`
      const headline = `Entries shown: ${range} of ${total} (directories first, ${order})${truncated ? " (TRUNCATED)" : ""}`
      const notHidden = hidden > 0 ? ` ${hidden} hidden or default-ignored ${hidden === 1 ? "entry" : "entries"} not shown (include_hidden=true shows them).` : ""
      const notIgnored =
        (matchedIgnore > 0 ? ` ${matchedIgnore} matched the ignore patterns.` : "") +
        (gitIgnored > 0 ? ` ${gitIgnored} ignored by .gitignore not shown (include_ignored=true shows them).` : "")
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
      const totals = `Totals: ${count(dirs, "dir", "dirs")}, ${count(files, "file", "files")}, ${count(links, "link", "links")}.${notHidden}${notIgnored}`
      const warnings: Array<string> = []
      if (hasMore) warnings.push(`Results truncated to entries ${range} of ${total}. Use offset=${nextOffset} to see the next page.`)
      else if (truncated) warnings.push(`Showing entries ${range} of ${total}; earlier entries are on previous pages (offset=0).`)
      const body = shownCount === 0 ? (total === 0 && hidden + matchedIgnore + gitIgnored === 0 ? "(empty directory)" : "(nothing to show)") : page.map((p, i) => line(entries[i]!, p.mtimeMs)).join("\n")

      const hints: Array<RetrievalHint> = []
      if (hasMore) hints.push(hint("LS", "high", { path: shown, offset: nextOffset, limit }))
      else if (truncated) hints.push(hint("LS", "high", { path: shown, offset: Math.max(0, offset - limit), limit }))

      const result: ToolResult = {
        status: truncated ? "partial" : "success",
        header: `LS: ${shown}`,
        text: [[headline, totals].join("\n"), body, ...warnings].join("\n\n"),
        data: { path: shown, entries, truncated, has_more: hasMore, next_offset: nextOffset, offset, limit, sort_by: sortBy, warnings },
        stats: { total_entries: total, dirs, files, links, hidden, ignored: matchedIgnore, gitignored: gitIgnored, shown: shownCount },
        context: { path_resolved: shown },
        hints,
        ...(truncated ? { truncation: { reason: "entry_limit", total_estimate: total } } : {}),
      }
      return result
    })),
})
