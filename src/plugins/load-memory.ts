import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { isRecord } from "../protocol/is-record.ts"
import { stampContent } from "../trust/content-hash.ts"

/**
 * Plugins that did not finish loading within their time limit (an import or a
 * `setup` that never ends), remembered across runs in the user's cache
 * (`$XDG_CACHE_HOME/anvil/plugins/load-timeouts.json`): such a plugin would
 * otherwise cost `plugins.load_timeout_ms` (ten seconds) to every command of
 * every later run. A remembered plugin is skipped at once, with the reason,
 * until its files change (their stat fingerprint: path, size, mtime, inode),
 * the time limit is raised above the one it missed, or `anvil plugins check`
 * tries it again. The file holds no decision a repository could use: it only
 * repeats what the user's own anvil saw, and it lives outside the project.
 */

/** One plugin that timed out while loading. */
export interface StuckLoad {
  /** The plugin's files' stat fingerprint when it timed out. */
  readonly stamp: string
  /** The time limit it missed. */
  readonly timeoutMs: number
  /** What the loader said then. */
  readonly message: string
  /** When (ISO time). */
  readonly at: string
}

export interface LoadMemory {
  /** The remembered time-out of the plugin at `path`, while it still applies. */
  readonly stuck: (path: string, timeoutMs: number) => StuckLoad | undefined
  readonly remember: (path: string, timeoutMs: number, message: string) => void
  readonly forget: (path: string) => void
}

const stampOf = (path: string): string | undefined => {
  try {
    return stampContent({ path })
  } catch {
    return undefined
  }
}

const isStuckLoad = (v: unknown): v is StuckLoad =>
  isRecord(v) && typeof v.stamp === "string" && typeof v.timeoutMs === "number" && typeof v.message === "string" && typeof v.at === "string"

/** The memory kept in `file`; read once, written (atomically, by rename) on each change. A damaged file is empty. */
export const openLoadMemory = (file: string): LoadMemory => {
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
  const write = () => {
    try {
      mkdirSync(dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      // A leftover of this pid is removed (a link is removed, not followed); "wx": a name planted in a shared cache
      // folder since then is refused, never written through.
      rmSync(temp, { force: true })
      writeFileSync(temp, JSON.stringify(entries, null, 1), { flag: "wx" })
      renameSync(temp, file)
    } catch {
      // A read-only cache only costs the time limit again next run.
    }
  }
  return {
    stuck: (path, timeoutMs) => {
      const entry = read()[path]
      if (!entry || timeoutMs > entry.timeoutMs) return undefined
      return stampOf(path) === entry.stamp ? entry : undefined
    },
    remember: (path, timeoutMs, message) => {
      const stamp = stampOf(path)
      if (stamp === undefined) return
      read()[path] = { stamp, timeoutMs, message, at: new Date().toISOString() }
      write()
    },
    forget: (path) => {
      if (!(path in read())) return
      delete read()[path]
      write()
    },
  }
}

/** The user's memory of plugins that timed out while loading, in the plugin cache folder. */
export const loadMemoryIn = (cacheDir: string): LoadMemory => openLoadMemory(join(cacheDir, "load-timeouts.json"))
