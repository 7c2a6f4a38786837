import { Clock, Effect } from "effect"
import { Path } from "effect/Path"
import { BulkFs, type DirEntry } from "./bulk-fs.ts"
import { ancestorRules, type DirRules, isIgnoredIn, loadDirRules } from "./ignore-rules.ts"
import type { NameFilter } from "./name-filter.ts"
import { keepBelowTopTier } from "./jit-tier.ts"

/**
 * The one directory walk behind glob and the built-in grep: breadth first,
 * names sorted within a directory, so the entries visited (and the point a
 * circuit breaker stops at) are the same on every run; directory listings are
 * read a few at a time to keep the disk busy; what was found is reported in
 * tree order at the end, so callers need not sort. Ignored, default-ignored and
 * never-entered directories are pruned before they are read. Symbolic links
 * are reported as links and never followed (no loops, no way out of the
 * sandbox).
 */

export type EntryKind = "file" | "dir" | "link" | "other"

/** What a walk's caller decides for each entry. */
export interface WalkVisitor<S> {
  /** A directory: `descend` to enter it with a new state, `emit` to report it; undefined = neither. */
  readonly dir: (parent: S, name: string) => { readonly descend?: S; readonly emit: boolean; readonly explicit: boolean } | undefined
  /** Anything else: whether to report it; undefined = no. */
  readonly file: (parent: S, name: string, kind: EntryKind) => { readonly explicit: boolean } | undefined
  /**
   * What `file` answers in a directory in state `parent`, when that can be
   * told once for the directory: `"none"` (undefined for every entry),
   * `"visible"` / `"any"` (not explicit for every file and link, with a name
   * not starting with "." / any name; undefined for the rest), `"each"`
   * (ask). Without it every entry is asked.
   */
  readonly files?: (parent: S) => "none" | "visible" | "any" | "each"
}

export interface WalkOptions<S> {
  /** The project root (absolute, real). */
  readonly root: string
  /** The directory to walk (absolute, real, inside the root). */
  readonly start: string
  /** The visitor's state at `start`. */
  readonly initial: S
  readonly visitor: WalkVisitor<S>
  /** Walk into ignored entries too (ignore files and the default list are not applied). */
  readonly includeIgnored: boolean
  /** Directory names skipped unless `includeIgnored` (the default ignore list). */
  readonly ignoredDirs: ReadonlySet<string>
  /**
   * What every non-folder name `visitor.file` can accept looks like (a
   * necessary condition, see name-filter.ts): the other names are counted
   * as looked at but never decoded, sorted or offered to the visitor.
   */
  readonly keep?: NameFilter | undefined
  /** Names never walked into, even when asked for (grep's `.git`). */
  readonly neverEnter?: ReadonlySet<string>
  /** Folders (relative to `start`) neither reported nor walked into, nor their entries counted: what no tool may read. */
  readonly skipDir?: (rel: string) => boolean
  /** Circuit breaker: stop after this many directory entries were looked at. */
  readonly maxEntries: number
  /** Circuit breaker: stop at this time (Clock milliseconds). */
  readonly deadline: number
  /** Called for every reported entry after the walk, in tree order (a folder's contents right after it, names in code-unit order), `rel` relative to `start` (POSIX). */
  readonly onEntry: (rel: string, kind: EntryKind) => void
}

export type StopReason = "max_entries" | "timeout"

export interface WalkSummary {
  /** Directory entries looked at. */
  readonly visited: number
  /** Directories listed. */
  readonly directories: number
  /** Why the walk stopped early, when it did. */
  readonly stoppedBy?: StopReason
  /** Directories that could not be listed (permission denied and the like), relative to `start`. */
  readonly unreadable: ReadonlyArray<string>
}

interface DirTask<S> {
  readonly abs: string
  readonly rel: string
  readonly state: S
  readonly rules: DirRules | undefined
  readonly node: DirNode
}

/** What a directory reported, in name order: entries and the folders walked into (reported in tree order at the end). */
interface DirNode {
  readonly items: Array<{ readonly name: string; readonly kind: EntryKind; readonly emit: boolean; readonly child?: DirNode }>
}

/** A folder's entries as the walk visits them: sorted by name, with the ignore rules in force there. */
interface Listing {
  entries: ReadonlyArray<DirEntry>
  total: number
  rules: DirRules | undefined
}

const READ_CONCURRENCY = 8
/** Names whose presence in a directory means it has rules of its own. */
const RULE_FILES = new Set([".gitignore", ".ignore", ".rgignore", ".git"])
const CHUNK = 64

const byName = (a: DirEntry, b: DirEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** A sorted copy, names in code-unit order: a folder's few entries by insertion (no comparator calls), a large one by Array sort. */
const sortedByName = (entries: ReadonlyArray<DirEntry>): Array<DirEntry> => {
  if (entries.length > 32) return [...entries].sort(byName)
  const out: Array<DirEntry> = []
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!
    let j = out.length
    out.push(entry)
    while (j > 0 && out[j - 1]!.name > entry.name) {
      out[j] = out[j - 1]!
      j--
    }
    out[j] = entry
  }
  return out
}

const hasRuleFile = (entries: ReadonlyArray<DirEntry>): boolean => {
  for (let i = 0; i < entries.length; i++) {
    const name = entries[i]!.name
    if (name.charCodeAt(0) === 46 && RULE_FILES.has(name)) return true
  }
  return false
}

const kindOf = (type: string): EntryKind =>
  type === "File" ? "file" : type === "Directory" ? "dir" : type === "SymbolicLink" ? "link" : "other"

export const walk = Effect.fn("walk")(function* <S>(options: WalkOptions<S>) {
  const bulk = yield* BulkFs
  const path = yield* Path
  const unreadable: Array<string> = []
  let visited = 0
  let directories = 0
  let stoppedBy: StopReason | undefined

  const rootRules = options.includeIgnored ? undefined : yield* ancestorRules(options.root, options.start)

  // The ignore files (and a `.git` file) must be seen whatever the filter says.
  const keep = options.keep === undefined || options.includeIgnored ? options.keep : options.keep.withNames(RULE_FILES)
  /** A chunk of directories listed in one batch, then the ignore files of those that have any. */
  const listChunk = (chunk: ReadonlyArray<DirTask<S>>) =>
    Effect.gen(function* () {
      const listed = yield* bulk.listDirectories(
        chunk.map((t) => t.abs),
        keep,
      )
      const out: Array<Listing | undefined> = []
      const withRules: Array<number> = []
      for (let i = 0; i < chunk.length; i++) {
        const raw = listed[i]
        if (raw === undefined) {
          out.push(undefined)
          continue
        }
        const entries = sortedByName(raw.entries)
        out.push({ entries, total: raw.total, rules: chunk[i]!.rules })
        if (!options.includeIgnored && hasRuleFile(entries)) withRules.push(i)
      }
      yield* Effect.forEach(
        withRules,
        (i) => {
          const listing = out[i]!
          return Effect.map(loadDirRules(chunk[i]!.abs, chunk[i]!.rules, new Set(listing.entries.map((e) => e.name))), (rules) => {
            listing.rules = rules
          })
        },
        { concurrency: READ_CONCURRENCY, discard: true },
      )
      return out
    })

  const sep = path.sep
  const child = (dir: string, name: string) => (dir.endsWith(sep) ? dir + name : dir + sep + name)
  const { visitor, ignoredDirs, includeIgnored, neverEnter, skipDir, maxEntries } = options

  /**
   * One listed folder's entries, in name order: what to report, which
   * folders to walk into next. False when the entries breaker stopped the
   * walk. A plain function, not part of the generator below: the engine
   * optimizes it on its own, much faster than a generator's whole body.
   */
  const visitFolder = (task: DirTask<S>, listing: Listing, next: Array<DirTask<S>>): boolean => {
    const prefix = task.rel === "" ? "" : `${task.rel}/`
    const items = task.node.items
    const entries = listing.entries
    const files = visitor.files === undefined ? "each" : visitor.files(task.state)
    for (let i = 0; i < entries.length; i++) {
      if (++visited > maxEntries) {
        visited = maxEntries
        stoppedBy = "max_entries"
        return false
      }
      const entry = entries[i]!
      const name = entry.name
      const kind = kindOf(entry.type)
      if (neverEnter?.has(name)) continue
      if (kind === "dir") {
        if (skipDir !== undefined && skipDir(prefix + name)) continue
        const decision = visitor.dir(task.state, name)
        if (decision === undefined) continue
        if (!includeIgnored && !decision.explicit) {
          if (ignoredDirs.has(name) || isIgnoredIn(listing.rules, task.abs, name, true)) continue
        }
        if (decision.descend !== undefined) {
          const node: DirNode = { items: [] }
          items.push({ name, kind, emit: decision.emit, child: node })
          next.push({ abs: child(task.abs, name), rel: prefix + name, state: decision.descend, rules: listing.rules, node })
        } else if (decision.emit) items.push({ name, kind, emit: true })
      } else {
        // A `.git` file (a linked worktree's or submodule's pointer) is repository metadata like the folder.
        if (name === ".git" && !includeIgnored && ignoredDirs.has(name)) continue
        let explicit = false
        if (files === "each") {
          const decision = visitor.file(task.state, name, kind)
          if (decision === undefined) continue
          explicit = decision.explicit
        } else if (files === "none" || kind === "other" || (files === "visible" && name.charCodeAt(0) === 46)) continue
        if (!includeIgnored && !explicit && isIgnoredIn(listing.rules, task.abs, name, false)) continue
        items.push({ name, kind, emit: true })
      }
    }
    // The entries the filter left out (the breaker cannot stop among them: checked before the call).
    visited += listing.total - entries.length
    return true
  }

  keepBelowTopTier(visitFolder)

  const top: DirNode = { items: [] }
  let frontier: Array<DirTask<S>> = [{ abs: options.start, rel: "", state: options.initial, rules: rootRules, node: top }]
  outer: while (frontier.length > 0) {
    const next: Array<DirTask<S>> = []
    for (let offset = 0; offset < frontier.length; offset += CHUNK) {
      const chunk = frontier.slice(offset, offset + CHUNK)
      const listings = yield* listChunk(chunk)
      for (let t = 0; t < chunk.length; t++) {
        const task = chunk[t]!
        const listing = listings[t]
        if (listing === undefined) {
          unreadable.push(task.rel === "" ? "." : task.rel)
          continue
        }
        if (listing.entries.length < listing.total && visited + listing.total > maxEntries) {
          // The breaker stops inside this folder: which entry it stops at depends on every name, so read them all.
          const whole = (yield* bulk.listDirectories([task.abs]))[0]
          if (whole === undefined) {
            unreadable.push(task.rel === "" ? "." : task.rel)
            continue
          }
          listing.entries = sortedByName(whole.entries)
          listing.total = whole.total
        }
        directories++
        if (!visitFolder(task, listing, next)) break outer
      }
      if ((yield* Clock.currentTimeMillis) > options.deadline) {
        stoppedBy = "timeout"
        break outer
      }
    }
    frontier = next
  }
  const report = (node: DirNode, prefix: string): void => {
    for (const item of node.items) {
      const rel = prefix + item.name
      if (item.emit) options.onEntry(rel, item.kind)
      if (item.child) report(item.child, `${rel}/`)
    }
  }
  report(top, "")
  const summary: WalkSummary = { visited, directories, unreadable, ...(stoppedBy ? { stoppedBy } : {}) }
  return summary
})

keepBelowTopTier(sortedByName, hasRuleFile, kindOf)
