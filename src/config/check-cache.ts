import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isRecord } from "../protocol/is-record.ts"
import { VERSION } from "../version.ts"
import { userCacheDir } from "../workspace/state-dir.ts"
import type { ConfigWarning } from "./warning.ts"

/**
 * Checking a file's settings against the Schema costs more than the rest of
 * reading the configuration (every section's Schema is made first), and an
 * anvil.json rarely changes between calls: the result of checking a file's
 * text is remembered in the user's cache folder, keyed by a hash of the
 * build, the file's path and its text. Any change to the text, or another
 * build, checks the file again.
 */

/** Where a file's settings check may be remembered. */
export interface ConfigCheckCache {
  /** The folder of remembered checks. */
  readonly dir: string
  /** The build whose Schema made a check: a check remembered by another build is made again. */
  readonly stamp: string
}

/** What a check left: the warnings, and the value when the text needed the JSONC parser to read. */
export interface RememberedCheck {
  readonly warnings: ReadonlyArray<ConfigWarning>
  readonly value: Readonly<Record<string, unknown>>
}

/** Entries kept; past this, the oldest are removed when one is added. */
const KEEP = 64

/**
 * `$XDG_CACHE_HOME/anvil/config-checks` (or `~/.cache/…`) in a compiled
 * executable, stamped with its version, size and modification time. Run from
 * source there is no stamp that follows an edit of the Schema, so nothing is
 * remembered.
 */
export const defaultCheckCache = (env: Readonly<Record<string, string | undefined>>): ConfigCheckCache | undefined => {
  if (!Bun.main.startsWith("/$bunfs/")) return undefined
  try {
    const binary = statSync(process.execPath)
    return { dir: join(userCacheDir(env), "config-checks"), stamp: `${VERSION}:${binary.size}:${binary.mtimeMs}:${binary.ino}` }
  } catch {
    return undefined
  }
}

const entryFile = (cache: ConfigCheckCache, file: string, text: string): string =>
  join(cache.dir, `${new Bun.CryptoHasher("sha256").update(`${cache.stamp}\0${file}\0${text}`).digest("hex").slice(0, 32)}.json`)

const isWarning = (w: unknown): w is ConfigWarning =>
  isRecord(w) &&
  typeof w.file === "string" &&
  typeof w.line === "number" &&
  typeof w.column === "number" &&
  typeof w.key === "string" &&
  (w.kind === "unknown_key" || w.kind === "invalid_value" || w.kind === "duplicate_key") &&
  typeof w.message === "string" &&
  (w.nearest === undefined || typeof w.nearest === "string")

/**
 * The remembered check of `text` at `file`, when there is a readable one. `needsValue`: the text is
 * not plain JSON, so the value must come from the entry (else the caller has it from JSON.parse).
 */
export const rememberedCheck = (cache: ConfigCheckCache, file: string, text: string, needsValue: boolean): RememberedCheck | undefined => {
  let entry: unknown
  try {
    entry = JSON.parse(readFileSync(entryFile(cache, file, text), "utf8"))
  } catch {
    return undefined
  }
  if (!isRecord(entry) || entry.file !== file || !Array.isArray(entry.warnings) || !entry.warnings.every(isWarning)) return undefined
  if (needsValue && !isRecord(entry.value)) return undefined
  return { warnings: entry.warnings, value: isRecord(entry.value) ? entry.value : {} }
}

/**
 * Remembers a check (best effort: a cache folder that cannot be written only means the next call
 * checks again). The value is kept only for text that is not plain JSON.
 */
export const rememberCheck = (
  cache: ConfigCheckCache,
  file: string,
  text: string,
  check: { readonly value: Readonly<Record<string, unknown>>; readonly warnings: ReadonlyArray<ConfigWarning>; readonly plain: boolean },
): void => {
  try {
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 })
    const target = entryFile(cache, file, text)
    const temp = `${target}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify({ file, warnings: check.warnings, ...(check.plain ? {} : { value: check.value }) }))
    renameSync(temp, target)
    prune(cache.dir)
  } catch {
    // Not remembered.
  }
}

/** Keeps the newest {@link KEEP} entries. */
const prune = (dir: string): void => {
  // Left-over temporary files (a process killed while writing) age out with the entries.
  const names = readdirSync(dir)
  if (names.length <= KEEP) return
  const aged = names.map((n) => {
    try {
      return { n, t: statSync(join(dir, n)).mtimeMs }
    } catch {
      return { n, t: 0 }
    }
  })
  for (const { n } of aged.sort((a, b) => b.t - a.t).slice(KEEP)) {
    try {
      unlinkSync(join(dir, n))
    } catch {
      // Removed by another process.
    }
  }
}
