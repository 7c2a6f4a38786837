import { Effect, Option } from "effect"
import { lstatSync } from "node:fs"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { GlobMatcher, GlobPatternError, matchesPath, strictPatternProblem } from "../search/glob-pattern.ts"
import { direntType, fdPath, readDirKeeping } from "../workspace/checked-fs.ts"
import { openCheckedScoped } from "../workspace/checked-open.ts"
import { fromErrno } from "../workspace/fs-error.ts"
import { fsPath, hasEscapedBytes, parseShownPath, resolveKeeping, showPath } from "../workspace/path-bytes.ts"
import { ancestorRules, isIgnoredBy, loadDirRules } from "../workspace/ignore-rules.ts"
import { Workspace } from "../workspace/workspace.ts"
import { hiddenAt, type PathFilter } from "../workspace/path-filter.ts"
import { missingPath } from "./missing-path.ts"
import { EntriesPastEnd, IgnoreGlobInvalid, NotAFolder } from "./files-error.ts"

/** lstat of an entry whose name is not UTF-8 (its bytes escaped, path-bytes.ts): through the name's bytes. */
const bytesLstat = (absolute: string): Effect.Effect<{ readonly size: number | bigint; readonly mtime: Option.Option<Date> }, unknown> =>
  Effect.try({
    try: () => {
      const st = lstatSync(fsPath(absolute))
      return { size: st.size, mtime: Option.some(st.mtime) }
    },
    catch: (e) => e,
  })

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

/** An entry of the complete listing beside a page: size and time only when the order needed them (no stat per entry otherwise). */
export type ListedEntry = Omit<ListEntry, "size" | "mtime"> & { readonly size?: number; readonly mtime?: number }

/** One page of a folder to list. */
export interface ListRequest {
  /** The folder, as given (relative to the working directory). */
  readonly path: string
  readonly offset: number
  readonly limit: number
  /** Also dotfiles and the names in `hiddenNames`. */
  readonly includeHidden: boolean
  /** Also what .gitignore / .ignore / .rgignore files leave out. */
  readonly includeIgnored: boolean
  /** Globs to leave out, matched against the name and the root-relative path. */
  readonly ignore: ReadonlyArray<string>
  readonly sortBy: "name" | "mtime" | "size"
  /** Names hidden by default (node_modules, dist, …). */
  readonly hiddenNames: ReadonlySet<string>
  /** Paths never listed or counted whatever the request (what the permission rules let no tool read). */
  readonly denied?: PathFilter | undefined
}

/** One page of a folder: its entries, folders first, and what was counted and left out. */
export interface FolderPage {
  /** The folder, as results name paths. */
  readonly shown: string
  readonly entries: ReadonlyArray<ListEntry>
  /** Each entry's modification time in milliseconds (same order as `entries`). */
  readonly mtimesMs: ReadonlyArray<number>
  /** Entries listed (over all pages). */
  readonly total: number
  /** Every entry in the same order, when the page holds fewer than `total`. */
  readonly all?: ReadonlyArray<ListedEntry>
  readonly dirs: number
  readonly files: number
  readonly links: number
  /** Left out as dotfiles or default-hidden names. */
  readonly hidden: number
  /** Left out by the ignore globs. */
  readonly matchedIgnore: number
  /** Left out by ignore files. */
  readonly gitIgnored: number
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

/**
 * One page of a folder's entries inside the project, folders first. The folder
 * is opened and its real place checked before it is read; links are described
 * without being followed out of the root; only links (and entries of unknown
 * type) cost a system call unless the order needs sizes or times.
 */
export const listFolder = (request: ListRequest) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const fs = yield* FileSystem
    const path = yield* Path
    const patterns: Array<GlobMatcher> = []
    for (const [index, pattern] of request.ignore.entries()) {
      if (pattern.trim() === "") continue
      // Read strictly, as grep's include is: a malformed glob would otherwise silently leave nothing out.
      const problem = strictPatternProblem(pattern)
      if (problem !== undefined) return yield* new IgnoreGlobInvalid({ index, pattern, message: problem })
      try {
        patterns.push(GlobMatcher.compile(pattern, { dot: true }))
      } catch (e) {
        if (e instanceof GlobPatternError) return yield* new IgnoreGlobInvalid({ index, pattern, message: e.message })
        throw e
      }
    }
    const { sortBy, offset, limit } = request

    const resolved = yield* ws.resolve(request.path)
    const shown = resolved.display
    const notFound = (why: string) => missingPath("dir", resolved.absolute, shown, why)
    if (!resolved.exists) return yield* notFound("")
    // The folder is opened first and its real place checked: a link swapped in after resolve() is never listed.
    const listing = yield* Effect.scoped(
      Effect.gen(function* () {
        const opened = yield* openCheckedScoped(ws.contains, resolved.absolute, request.path, shown)
        if (opened === undefined) return yield* notFound(" (a symbolic link whose target does not exist)")
        if (!opened.stat.isDirectory()) return yield* new NotAFolder({ shown })
        return yield* Effect.try({
          try: () => readDirKeeping(fdPath(opened.fd)).map(({ name, dirent }) => ({ name, type: direntType(dirent) })),
          catch: (e) => fromErrno((e as { code?: string }).code, shown, String(e)),
        })
      }),
    )
    // Entries are named from the folder's own path (a quoted name is quoted whole, with the entry's part in it).
    const base = shown === "." ? "" : `${parseShownPath(shown)}/`
    const join = (dir: string, name: string) => resolveKeeping(dir, name, path.join)
    // As in ignore files: a pattern leaves out a folder of that name too ("node_modules"); one ending in "/" only folders.
    const matchesEntry = (m: GlobMatcher, rel: string, isDir: boolean) => matchesPath(m, rel, isDir) || (isDir && matchesPath(m, rel, false))
    const ignoredByGlob = (name: string, isDir: boolean) =>
      patterns.some((m) => matchesEntry(m, name, isDir) || matchesEntry(m, `${base}${name}`, isDir))
    // .gitignore / .ignore / .rgignore in force here, from the project root (or the enclosing repository) down.
    const rules = request.includeIgnored
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

    // Judged as named and, for a folder listed through a link, where it really is; a link by where it leads (below).
    const denied = request.denied
    const bases = [...new Set([shown === "." ? "." : parseShownPath(shown), ws.display(resolved.real)])]
    const visible = listing.filter((e) => {
      if (denied && hiddenAt(denied, bases, e.name, e.type === "Directory")) return false
      if (!request.includeHidden && (e.name.startsWith(".") || request.hiddenNames.has(e.name))) {
        hidden++
        return false
      }
      const isDir = e.type === "Directory"
      if (ignoredByGlob(e.name, isDir)) {
        matchedIgnore++
        return false
      }
      if (rules !== undefined && isIgnoredBy(rules, join(resolved.real, e.name), isDir)) {
        gitIgnored++
        return false
      }
      return true
    })
    const classify = (name: string, type: string): Raw | undefined => {
      const absolute = join(resolved.real, name)
      if (type === "Directory") return { name, absolute, type: "dir" }
      if (type === "SymbolicLink" || type === "Unknown") return undefined
      const kind = SPECIAL[type]
      return { name, absolute, type: "file", ...(kind ? { kind } : {}) }
    }
    // Only links (and entries of unknown type) cost a system call here.
    const found = yield* Effect.forEach(
      visible,
      (e) => {
        const plain = classify(e.name, e.type)
        if (plain) return Effect.succeed(plain)
        return Effect.gen(function* () {
          const absolute = join(resolved.real, e.name)
          const type = e.type === "Unknown" ? yield* fs.lstat(absolute).pipe(Effect.map((s) => s.type), Effect.orElseSucceed(() => "File" as const)) : e.type
          if (type !== "SymbolicLink") return classify(e.name, type === "Unknown" ? "File" : type)!
          return { name: e.name, absolute, type: "link", ...(yield* linkTarget(absolute)) } satisfies Raw
        })
      },
      { concurrency: 16 },
    )

    const raws = denied ? found.filter((r) => r.target === undefined || r.targetType === undefined || !denied.hides(r.target, r.targetType === "dir")) : found

    const info = (r: Raw) =>
      (hasEscapedBytes(r.absolute) ? bytesLstat(r.absolute) : fs.lstat(r.absolute)).pipe(
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
    let ordered: ReadonlyArray<{ raw: Raw; size?: number; mtimeMs?: number }>
    if (sortBy === "name") {
      ordered = [...raws].sort(byName).map((raw) => ({ raw }))
      page = yield* Effect.forEach(ordered.slice(offset, offset + limit), ({ raw }) => Effect.map(info(raw), (i) => ({ raw, ...i })), { concurrency: 16 })
    } else {
      const all = yield* Effect.forEach(raws, (raw) => Effect.map(info(raw), (i) => ({ raw, ...i })), { concurrency: 16 })
      const key = (x: (typeof all)[number]) => (sortBy === "mtime" ? x.mtimeMs : x.size)
      ordered = all.sort((a, b) => group(a.raw) - group(b.raw) || key(b) - key(a) || byName(a.raw, b.raw))
      page = ordered.slice(offset, offset + limit) as typeof all
    }

    const total = raws.length
    if (offset > 0 && offset >= total) return yield* new EntriesPastEnd({ shown, offset, total, limit })
    const dirs = raws.filter((r) => r.type === "dir").length
    const links = raws.filter((r) => r.type === "link").length
    const listed = (raw: Raw, size?: number, mtimeMs?: number): ListedEntry => ({
      path: showPath(`${base}${raw.name}${raw.type === "dir" ? "/" : ""}`),
      name: showPath(raw.name),
      type: raw.type,
      ...(size !== undefined ? { size } : {}),
      ...(mtimeMs !== undefined ? { mtime: Math.floor(mtimeMs / 1000) } : {}),
      ...(raw.target !== undefined ? { target: raw.target } : {}),
      ...(raw.targetType !== undefined ? { target_type: raw.targetType } : {}),
      ...(raw.kind !== undefined ? { kind: raw.kind } : {}),
    })
    const entries = page.map(({ raw, size, mtimeMs }) => listed(raw, size, mtimeMs) as ListEntry)
    const result: FolderPage = {
      shown,
      entries,
      mtimesMs: page.map((p) => p.mtimeMs),
      total,
      ...(page.length < total ? { all: ordered.map(({ raw, size, mtimeMs }) => listed(raw, size, mtimeMs)) } : {}),
      dirs,
      files: total - dirs - links,
      links,
      hidden,
      matchedIgnore,
      gitIgnored,
    }
    return result
  })
