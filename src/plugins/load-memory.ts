import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { isRecord } from "../protocol/is-record.ts"
import { stampContent, type Stamps } from "../trust/content-hash.ts"

/**
 * Plugins that did not finish loading within their time limit (an import or a
 * `setup` that never ends), remembered across runs in the user's cache
 * (`$XDG_CACHE_HOME/anvil/plugins/load-timeouts.json`): such a plugin would
 * otherwise cost `plugins.load_timeout_ms` (ten seconds) to every command of
 * every later run. One time-out is only counted: a busy or slow machine can
 * miss a limit once. A plugin that timed out on {@link STUCK_AFTER} loads in a
 * row (its files unchanged, no load in time between) is skipped at once, with
 * the reason, until its files change (their stat fingerprint: path, size,
 * mtime, inode), the time limit is raised above the one it missed, or `anvil
 * plugins check` tries it again. The file holds no decision a repository could
 * use: it only repeats what the user's own anvil saw, and it lives outside the
 * project.
 */

/** Time-outs in a row after which a plugin is skipped. */
export const STUCK_AFTER = 2

/** One plugin that timed out while loading. */
export interface StuckLoad {
  /** The plugin's files' stat fingerprint when it timed out. */
  readonly stamp: string
  /** The time limit it missed. */
  readonly timeoutMs: number
  /** What the loader said then. */
  readonly message: string
  /** When (ISO time), the last time. */
  readonly at: string
  /** Time-outs in a row with these files (absent: 1). */
  readonly count?: number
  /**
   * The plugin was loading when another plugin's load froze anvil, and the watchdog could not tell which
   * (watchdog.ts): the next run loads it alone, after the others, so a freeze then names it.
   */
  readonly suspect?: boolean
}

export interface LoadMemory {
  /** The remembered time-outs of the plugin at `path`, while they make it skipped. */
  readonly stuck: (path: string, timeoutMs: number) => StuckLoad | undefined
  /** Counts a time-out; answers how many in a row it makes. */
  readonly remember: (path: string, timeoutMs: number, message: string) => number
  /**
   * Whether the plugin at `path`, unchanged, is to load alone, after the others: it timed out or froze anvil
   * before, or is a suspect (see StuckLoad.suspect). A freeze while it loads then names it (watchdog.ts).
   */
  readonly alone: (path: string) => boolean
  /** The entries the watchdog writes if this plugin's load freezes anvil: counted as a time-out, or a suspect. */
  readonly pending: (path: string, timeoutMs: number, message: string) => FreezeMemory | undefined
  readonly forget: (path: string) => void
}

/** What the watchdog writes into the memory for one plugin: `file`'s entry at `path`, `frozen` or `suspect`. */
export interface FreezeMemory {
  readonly file: string
  readonly path: string
  readonly frozen: StuckLoad
  readonly suspect: StuckLoad
}

const isStuckLoad = (v: unknown): v is StuckLoad =>
  isRecord(v) &&
  typeof v.stamp === "string" &&
  typeof v.timeoutMs === "number" &&
  typeof v.message === "string" &&
  typeof v.at === "string" &&
  (v.count === undefined || typeof v.count === "number") &&
  (v.suspect === undefined || typeof v.suspect === "boolean")

/**
 * The memory kept in `file`; read once, written (atomically, by rename) on each change. A damaged file is empty.
 * `stamps`: how a plugin's files are fingerprinted (stampsOnce shares the trust check's walk of a start).
 */
export const openLoadMemory = (file: string, stamps: Stamps = stampContent): LoadMemory => {
  const stampOf = (path: string): string | undefined => {
    try {
      return stamps({ path })
    } catch {
      return undefined
    }
  }
  let entries: Record<string, StuckLoad> | undefined
  const read = (): Record<string, StuckLoad> => {
    if (entries) return entries
    entries = {}
    try {
      const data: unknown = JSON.parse(readFileSync(file, "utf8"))
      if (isRecord(data)) for (const [path, entry] of Object.entries(data)) if (isStuckLoad(entry)) entries[path] = entry
    } catch {
      // No memory yet, or a damaged one: nothing is skipped.
    }
    return entries
  }
  const write = (content: string) => {
    try {
      mkdirSync(dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      // A leftover of this pid is removed (a link is removed, not followed); "wx": a name planted in a shared cache
      // folder since then is refused, never written through.
      rmSync(temp, { force: true })
      writeFileSync(temp, content, { flag: "wx" })
      renameSync(temp, file)
    } catch {
      // A read-only cache only costs the time limit again next run.
    }
  }
  const text = (all: Record<string, StuckLoad>) => JSON.stringify(all, null, 1)
  /** The entry a time-out of `path` makes: one more in a row while its files are unchanged. */
  const next = (path: string, timeoutMs: number, message: string): StuckLoad | undefined => {
    const stamp = stampOf(path)
    if (stamp === undefined) return undefined
    const before = read()[path]
    const count = before?.stamp === stamp ? (before.suspect ? (before.count ?? 0) : (before.count ?? 1)) + 1 : 1
    return { stamp, timeoutMs, message, at: new Date().toISOString(), count }
  }
  return {
    stuck: (path, timeoutMs) => {
      const entry = read()[path]
      if (!entry || (entry.count ?? 1) < STUCK_AFTER || timeoutMs > entry.timeoutMs) return undefined
      return stampOf(path) === entry.stamp ? entry : undefined
    },
    remember: (path, timeoutMs, message) => {
      const entry = next(path, timeoutMs, message)
      if (!entry) return 1
      read()[path] = entry
      write(text(read()))
      return entry.count ?? 1
    },
    alone: (path) => {
      const entry = read()[path]
      return entry !== undefined && stampOf(path) === entry.stamp
    },
    pending: (path, timeoutMs, message) => {
      const frozen = next(path, timeoutMs, message)
      return frozen ? { file, path, frozen, suspect: { ...frozen, count: (frozen.count ?? 1) - 1, suspect: true } } : undefined
    },
    forget: (path) => {
      if (!(path in read())) return
      delete read()[path]
      write(text(read()))
    },
  }
}

/** What a time-out just counted (the `count`th in a row) comes to, for the plugin at `path`. */
export const countedTimeOut = (count: number, path: string): string =>
  count >= STUCK_AFTER
    ? `it timed out ${count} times in a row: later runs skip it until its files change, plugins.load_timeout_ms is raised or 'anvil plugins check ${path}' tries it`
    : "if it times out on the next load too, later runs skip it until its files change"

/** Why a remembered plugin is skipped. */
export const skippedSince = (entry: StuckLoad, path: string): string =>
  `timed out ${entry.count ?? STUCK_AFTER} times in a row while loading, the last at ${entry.at} (${entry.message}); ` +
  `skipped since, until its files change or plugins.load_timeout_ms is raised ('anvil plugins check ${path}' tries it now)`

/** The reason remembered for a load that froze anvil (watchdog.ts); `what`: "its import", "its setup". */
export const frozeWhile = (what: string, timeoutMs: number): string =>
  `${what} kept anvil's thread busy past plugins.load_timeout_ms (${timeoutMs} ms) and anvil was stopped`

/** The user's memory of plugins that timed out while loading, in the plugin cache folder. */
export const loadMemoryIn = (cacheDir: string, stamps?: Stamps): LoadMemory => openLoadMemory(join(cacheDir, "load-timeouts.json"), stamps)
