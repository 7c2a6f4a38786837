import { Predicate } from "effect"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseJsonc } from "../config/jsonc.ts"
import { claudeConfigDir } from "./places.ts"
import { mergeWithEntry } from "./marketplace-merge.ts"

/**
 * The plugins Claude Code installed from marketplaces (`/plugin install`) and
 * its settings enable, so a user who set them up for Claude Code finds them in
 * anvil too. Claude Code keeps them under its config folder
 * (`$CLAUDE_CONFIG_DIR`, else `~/.claude`): `plugins/installed_plugins.json`
 * says where each `name@marketplace` was put (version 2: a list of installs
 * per key; version 1: one), else `plugins/cache/<marketplace>/<name>/<version>/`
 * or the marketplace's own checkout (`plugins/marketplaces/<marketplace>/`,
 * whose `.claude-plugin/marketplace.json` names each plugin's folder) hold it.
 * A folder without `.claude-plugin/plugin.json` is described by its
 * marketplace entry (`"strict": false`); one with it gets the parts its entry
 * adds (`"strict": true`, the default; see marketplace-merge.ts).
 * `enabledPlugins` (`{"name@marketplace": true}`) is read from the user's
 * `settings.json`, then the project's `.claude/settings.json` and
 * `.claude/settings.local.json`; a later file's value wins, except over the
 * user's `true` (see enabledPlugins). A plugin the project's files enable
 * counts as a project plugin (trust asked), since a cloned repository chose
 * it; one the user's settings enable is the user's.
 */

type Env = Readonly<Record<string, string | undefined>>

export interface InstalledClaudePlugin {
  /** `name@marketplace` as the settings name it. */
  readonly key: string
  /** The plugin's folder. */
  readonly path: string
  readonly source: "user" | "project"
  /**
   * Its marketplace entry, when the folder has no `.claude-plugin/plugin.json`: the entry is then the whole
   * manifest (`"strict": false`, as anthropics/skills publishes its plugins: `source: "./"` and `skills: [...]`).
   * With a plugin.json, its manifest merged with the entry's parts (see marketplace-merge.ts), when the entry has any.
   */
  readonly manifest?: Readonly<Record<string, unknown>>
}

/** Reads one of Claude Code's files: undefined when it is missing or empty; one that cannot be read or parsed is a problem, once per file. */
type ReadJson = (file: string) => unknown

const jsonReader = (problem: (file: string, why: string) => void): ReadJson => {
  const seen = new Map<string, unknown>()
  return (file) => {
    if (seen.has(file)) return seen.get(file)
    let value: unknown
    try {
      const text = readFileSync(file, "utf8")
      value = text.trim() === "" ? undefined : parseJsonc(text)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== "ENOENT" && code !== "ENOTDIR") problem(file, code ? `cannot be read (${code})` : `is not valid JSON (${(e as Error).message})`)
    }
    seen.set(file, value)
    return value
  }
}

/** What a broken file of Claude Code's costs, so the problem says what did not load. */
const costOf = (file: string): string =>
  file.endsWith("settings.json") || file.endsWith("settings.local.json")
    ? "the plugins its enabledPlugins turns on or off were not read"
    : file.endsWith("installed_plugins.json")
      ? "where Claude Code installed each plugin is not known, so the plugin cache and the marketplaces were searched instead"
      : file.endsWith("known_marketplaces.json")
        ? "where Claude Code put each marketplace is not known, so ~/.claude/plugins/marketplaces/ was searched instead"
        : "the plugins it lists were not found through it"

/** A plugin.json as Claude Code reads it (JSON, no comments), when it is an object; a broken one is reported where the plugin loads. */
const strictJson = (file: string): Record<string, unknown> | undefined => {
  try {
    const json: unknown = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""))
    return Predicate.isObject(json) ? json : undefined
  } catch {
    return undefined
  }
}

const isFolder = (p: string): boolean => {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

/**
 * `enabledPlugins` merged over the settings files, with the file that decided each key. A plugin the user's file
 * turns on stays on and the user's whatever the project's files say: unlike Claude Code's merge, a repository's
 * `false` must not switch off a guard the user installed, nor its `true` make that plugin a project one waiting
 * for trust (so not run). A project at the home folder has one file for both, which is the project's.
 */
const enabledPlugins = (readJson: ReadJson, root: string, configDir: string): Map<string, { enabled: boolean; source: "user" | "project" }> => {
  const merged = new Map<string, { enabled: boolean; source: "user" | "project" }>()
  const userFile = join(configDir, "settings.json")
  const projectFiles = [join(root, ".claude", "settings.json"), join(root, ".claude", "settings.local.json")].map((f) => resolve(f))
  const files: Array<[string, "user" | "project"]> = [
    ...(projectFiles.includes(resolve(userFile)) ? [] : [[userFile, "user"] as [string, "user"]]),
    ...projectFiles.map((f): [string, "project"] => [f, "project"]),
  ]
  for (const [file, source] of files) {
    const data = readJson(file)
    if (!Predicate.isObject(data) || !Predicate.isObject(data.enabledPlugins)) continue
    // As Claude Code reads it: `false` turns a plugin off; any other value but a list turns it on.
    for (const [key, value] of Object.entries(data.enabledPlugins)) {
      if (Array.isArray(value) || value === null || value === undefined) continue
      const before = merged.get(key)
      if (source === "project" && before?.source === "user" && before.enabled) continue
      merged.set(key, { enabled: value !== false, source })
    }
  }
  return merged
}

/** Where installed_plugins.json puts a plugin: an install for this project first, then any other that exists. */
const recordedPath = (installed: unknown, key: string, root: string): string | undefined => {
  if (!Predicate.isObject(installed) || !Predicate.isObject(installed.plugins)) return undefined
  const entry = installed.plugins[key]
  const records = (Array.isArray(entry) ? entry : [entry]).filter(Predicate.isObject)
  const paths = (rs: ReadonlyArray<Record<string, unknown>>) => rs.flatMap((r) => (typeof r.installPath === "string" && isFolder(r.installPath) ? [r.installPath] : []))
  const here = records.filter((r) => typeof r.projectPath === "string" && resolve(r.projectPath) === resolve(root))
  return paths(here)[0] ?? paths(records.filter((r) => r.scope === undefined || r.scope === "user"))[0] ?? paths(records)[0]
}

/** The newest version folder in the cache (names compared as numbers where they are). */
const cachedPath = (configDir: string, name: string, marketplace: string): string | undefined => {
  const dir = join(configDir, "plugins", "cache", marketplace, name)
  if (existsSync(join(dir, ".claude-plugin"))) return dir
  let versions: Array<string>
  try {
    versions = readdirSync(dir).filter((v) => isFolder(join(dir, v)))
  } catch {
    return undefined
  }
  const newest = versions.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))[0]
  return newest === undefined ? undefined : join(dir, newest)
}

/** The marketplace's checkout: where known_marketplaces.json says Claude Code put it, else `plugins/marketplaces/<name>`. */
const marketplaceDir = (readJson: ReadJson, configDir: string, marketplace: string): string => {
  const known = readJson(join(configDir, "plugins", "known_marketplaces.json"))
  const entry = Predicate.isObject(known) ? known[marketplace] : undefined
  const at = Predicate.isObject(entry) ? entry.installLocation : undefined
  return typeof at === "string" && isFolder(at) ? at : join(configDir, "plugins", "marketplaces", marketplace)
}

/** A marketplace.json's entry for the plugin, and the folder its relative `source` is read from (`metadata.pluginRoot`, else the marketplace's). */
const listingEntry = (readJson: ReadJson, dir: string, name: string): { entry: Record<string, unknown>; base: string } | undefined => {
  const listing = readJson(join(dir, ".claude-plugin", "marketplace.json"))
  if (!Predicate.isObject(listing) || !Array.isArray(listing.plugins)) return undefined
  const entry = listing.plugins.find((p): p is Record<string, unknown> => Predicate.isObject(p) && p.name === name)
  const root = Predicate.isObject(listing.metadata) ? listing.metadata.pluginRoot : undefined
  return entry ? { entry, base: typeof root === "string" ? resolve(dir, root) : dir } : undefined
}

/** A plugin inside the marketplace's checkout, by the `source` path its marketplace.json gives. */
const marketplacePath = (readJson: ReadJson, configDir: string, name: string, marketplace: string): string | undefined => {
  const found = listingEntry(readJson, marketplaceDir(readJson, configDir, marketplace), name)
  if (!found || typeof found.entry.source !== "string") return undefined
  const path = resolve(found.base, found.entry.source)
  return isFolder(path) ? path : undefined
}

/**
 * The manifest of a plugin folder without `.claude-plugin/plugin.json`: its entry in the marketplace's checkout, else
 * in a marketplace.json the folder holds itself (a `source: "./"` plugin is a copy of the whole marketplace).
 */
const entryManifest = (readJson: ReadJson, configDir: string, path: string, name: string, marketplace: string): Record<string, unknown> | undefined =>
  (listingEntry(readJson, marketplaceDir(readJson, configDir, marketplace), name) ?? listingEntry(readJson, path, name))?.entry

/** The enabled, installed Claude Code plugins, and a problem for each enabled one that cannot be found. */
export const claudeInstalledPlugins = (root: string, env: Env): { plugins: Array<InstalledClaudePlugin>; problems: Array<string> } => {
  const configDir = claudeConfigDir(env)
  if (configDir === undefined) return { plugins: [], problems: [] }
  // A file that does not parse is no file to Claude Code's reader either, but it must not make plugins vanish unsaid.
  const problems: Array<string> = []
  const readJson = jsonReader((file, why) => problems.push(`${file} ${why}: ${costOf(file)}. Fix the file (Claude Code cannot read it either)`))
  const enabled = enabledPlugins(readJson, root, configDir)
  if (enabled.size === 0) return { plugins: [], problems }
  const installed = readJson(join(configDir, "plugins", "installed_plugins.json"))
  const plugins: Array<InstalledClaudePlugin> = []
  for (const [key, { enabled: on, source }] of enabled) {
    if (!on) continue
    const at = key.lastIndexOf("@")
    const name = at > 0 ? key.slice(0, at) : key
    const marketplace = at > 0 ? key.slice(at + 1) : ""
    const path =
      recordedPath(installed, key, root) ?? (marketplace !== "" ? (cachedPath(configDir, name, marketplace) ?? marketplacePath(readJson, configDir, name, marketplace)) : undefined)
    if (path === undefined) {
      problems.push(`enabledPlugins: ${key} is enabled but not installed under ${join(configDir, "plugins")} (install it with Claude Code's /plugin install, or set it to false)`)
      continue
    }
    const own = join(path, ".claude-plugin", "plugin.json")
    if (existsSync(own)) {
      // Its marketplace entry may add parts (or, "strict": false, be the whole plugin): merged as Claude Code merges them.
      const entry = marketplace !== "" ? entryManifest(readJson, configDir, path, name, marketplace) : undefined
      const manifest = entry ? strictJson(own) : undefined
      const merged = entry && manifest ? mergeWithEntry(path, manifest, entry) : { manifest: undefined }
      if ("conflict" in merged) problems.push(`enabledPlugins: ${key}: ${merged.conflict}`)
      else plugins.push({ key, path, source, ...(merged.manifest ? { manifest: merged.manifest } : {}) })
      continue
    }
    const manifest = marketplace !== "" ? entryManifest(readJson, configDir, path, name, marketplace) : undefined
    if (manifest) plugins.push({ key, path, source, manifest })
    else problems.push(`enabledPlugins: ${key} is installed at ${path}, which has no .claude-plugin/plugin.json, and its marketplace's marketplace.json does not describe it`)
  }
  return { plugins, problems }
}
