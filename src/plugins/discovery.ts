import { Predicate } from "effect"
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs"
import { basename, dirname, extname, join, resolve, sep } from "node:path"
import { parseJsonc } from "../config/jsonc.ts"
import { readSettingsFile } from "../config/settings-file.ts"
import { pluginPathEntries } from "../config/sections/plugins.ts"
import { projectOnlyEntries, type LayerData } from "../config/project-only-entries.ts"
import { userConfigHome } from "../workspace/state-dir.ts"
import { readJson } from "./claude-components.ts"
import { claudeInstalledPlugins } from "./claude-installed.ts"
import { readJsonPart } from "./json-part.ts"
import { notAPluginName, projectHookSettings, userHookSettings, userPluginsDir } from "./places.ts"
import { INVALID_PLUGIN_NAME, nameOrigin, pluginNameProblem } from "./plugin-name.ts"
import { readPluginDirs } from "./plugin-dirs-env.ts"

export { userPluginsDir }

/**
 * Where plugins come from, without running any of them:
 * 1. the user's folder `$XDG_CONFIG_HOME/anvil/plugins` (`~/.config/anvil/plugins`);
 * 2. the project's `.anvil/plugins`;
 * 3. `plugins.paths` in anvil.json: each entry a folder of plugins or one
 *    plugin, relative to the root, absolute, or starting with `~`. An entry
 *    inside the project counts as a project plugin (it came with the repository),
 *    and so does every entry the project's own anvil.json adds to the user's list:
 *    a cloned repository must not run code from outside it without asking either;
 * 4. `ANVIL_PLUGIN_DIRS` (`:`-separated, or a JSON array), each entry like a `plugins.paths` one: the
 *    Agent SDK host puts the program's `plugins` there;
 * 5. the plugins Claude Code installed that its settings' `enabledPlugins`
 *    turn on (see claude-installed.ts): the user's when the user's settings
 *    enable them, the project's when the project's `.claude/` settings do.
 *
 * In a plugins folder, a plugin is a `.ts`/`.js`/`.mts`/`.mjs` file, a folder
 * with `package.json` (its `exports["."]` or `main`, else `index.ts`) or an index file, or a
 * Claude Code plugin folder (`.claude-plugin/plugin.json`). Names starting with
 * `.` or `_`, `node_modules` and `.d.ts` files are not plugins.
 *
 * Order: user plugins, then project plugins, each alphabetically by name. It
 * is the order hooks run in.
 */

export type PluginSource = "user" | "project"

export interface DiscoveredPlugin {
  /** The file name without extension or the folder's name (a Claude Code plugin's `name`); trust and `plugins.disabled` use it. */
  readonly name: string
  readonly source: PluginSource
  /** "module": TypeScript or JavaScript; "claude": a Claude Code plugin folder. */
  readonly kind: "module" | "claude"
  /** The plugin's file or folder (absolute). */
  readonly path: string
  /** The module to import (a file, or a folder's main); undefined for a Claude Code folder. */
  readonly entry: string | undefined
  /** True when `path` is a folder (bundled before import, hashed whole for trust). */
  readonly folder: boolean
  /** Why this entry cannot be a plugin (a folder without an entry file, a broken plugin.json, a name it cannot have). */
  readonly problem?: string
  /** The problem's code, when it has one (`invalid_plugin_name`). */
  readonly problemCode?: string
  /** A Claude Code plugin's marketplace entry, its manifest when the folder has no plugin.json (see claude-installed.ts). */
  readonly manifest?: Readonly<Record<string, unknown>>
  /** The hooks of Claude Code settings files, not a plugin folder: the project's `.claude/settings.json` and `.claude/settings.local.json`, or your `~/.claude/settings.json`. */
  readonly settingsHooks?: "project" | "user"
}

/**
 * What trusting a plugin covers: its file or folder and, for a Claude Code plugin described by its marketplace
 * entry, that entry (it names the hooks and servers the folder runs, and lives in a checkout a `git pull` updates).
 */
export const pluginTrustContent = (plugin: Pick<DiscoveredPlugin, "path" | "manifest">): { readonly path: string; readonly with?: string } =>
  plugin.manifest !== undefined ? { path: plugin.path, with: JSON.stringify(plugin.manifest) } : { path: plugin.path }

export interface PluginPlaces {
  readonly plugins: ReadonlyArray<DiscoveredPlugin>
  /** Configuration problems (a `plugins.paths` entry that does not exist, `~` without HOME). */
  readonly problems: ReadonlyArray<string>
}

const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"]
const INDEX_FILES = MODULE_EXTENSIONS.map((e) => `index${e}`)

const isModuleFile = (name: string) =>
  MODULE_EXTENSIONS.includes(extname(name)) && !name.endsWith(".d.ts") && !name.endsWith(".d.mts")


/** A package's own entry: `exports["."]` (its bun, import or default condition), else `main`. */
const entryOf = (pkg: Readonly<Record<string, unknown>>): string | undefined => {
  const pick = (v: unknown): string | undefined =>
    typeof v === "string" ? v : Predicate.isObject(v) ? (pick(v.bun) ?? pick(v.import) ?? pick(v.default)) : undefined
  const exported = typeof pkg.exports === "string" ? pkg.exports : Predicate.isObject(pkg.exports) ? pick(pkg.exports["."]) : undefined
  return exported ?? (typeof pkg.main === "string" ? pkg.main : undefined)
}

/**
 * A plugin whose name cannot name it is its error (with the name to use), unless it has a problem already: the
 * name goes into trust, settings, and the names of what it brings (plugin-name.ts).
 */
const withUsableName = (plugin: DiscoveredPlugin): DiscoveredPlugin => {
  if (plugin.problem !== undefined) return plugin
  const problem = pluginNameProblem(plugin.name, nameOrigin(plugin))
  return problem === undefined ? plugin : { ...plugin, problem, problemCode: INVALID_PLUGIN_NAME }
}

/** What one file or folder is, or undefined when it is not meant as a plugin. */
export const classify = (path: string, source: PluginSource): DiscoveredPlugin | undefined => {
  const found = classifyPath(path, source)
  return found && withUsableName(found)
}

const classifyPath = (path: string, source: PluginSource): DiscoveredPlugin | undefined => {
  const name = basename(path)
  let info
  try {
    info = statSync(path)
  } catch {
    return undefined
  }
  if (info.isFile()) {
    if (!isModuleFile(name)) return undefined
    return { name: name.slice(0, -extname(name).length), source, kind: "module", path, entry: path, folder: false }
  }
  if (!info.isDirectory()) return undefined
  const manifest = join(path, ".claude-plugin", "plugin.json")
  if (existsSync(manifest)) {
    // A broken manifest is the plugin's error, placed at its line and column.
    const part = readJsonPart(manifest)
    if ("problem" in part) return { name, source, kind: "claude", path, entry: undefined, folder: true, problem: part.problem }
    const json = part.json
    const given = Predicate.isObject(json) && typeof json.name === "string" && json.name.trim() !== "" ? json.name.trim() : name
    return { name: given, source, kind: "claude", path, entry: undefined, folder: true }
  }
  const pkgFile = join(path, "package.json")
  if (existsSync(pkgFile)) {
    let pkg: unknown
    try {
      pkg = readJson(pkgFile)
    } catch (e) {
      return { name, source, kind: "module", path, entry: undefined, folder: true, problem: `${pkgFile}: not valid JSON (${(e as Error).message})` }
    }
    const main = Predicate.isObject(pkg) ? entryOf(pkg) : undefined
    if (main !== undefined) {
      const entry = resolve(path, main)
      if (!existsSync(entry)) return { name, source, kind: "module", path, entry: undefined, folder: true, problem: `package.json names ${main} as its entry, which does not exist` }
      return { name, source, kind: "module", path, entry, folder: true }
    }
  }
  const index = INDEX_FILES.find((f) => existsSync(join(path, f)))
  if (index) return { name, source, kind: "module", path, entry: join(path, index), folder: true }
  if (existsSync(pkgFile)) return { name, source, kind: "module", path, entry: undefined, folder: true, problem: `no "main" in package.json and no index.ts` }
  return undefined
}

/**
 * The plugins in a plugins folder. A `plugins.paths` entry (`named`) may also
 * be one plugin itself: a file, or a folder with package.json, an index file
 * or `.claude-plugin/`.
 */
const scan = (dir: string, source: PluginSource, named: boolean): Array<DiscoveredPlugin> => {
  const itself = named ? classify(dir, source) : undefined
  if (itself) return [itself]
  let names: Array<string>
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const found: Array<DiscoveredPlugin> = []
  for (const name of names.sort()) {
    if (notAPluginName(name)) continue
    const one = classify(join(dir, name), source)
    if (one) found.push(one)
  }
  return found
}

const realOr = (p: string) => {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}

const within = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)

/** The `plugins.paths` entries one anvil.json names (trimmed), none when it cannot be read. */
const pathsIn = (file: string): ReadonlyArray<string> => {
  const read = readSettingsFile(file)
  if (read.kind !== "text") return []
  try {
    const data = parseJsonc(read.text)
    return pluginPathEntries(Predicate.isObject(data) && Predicate.isObject(data.plugins) ? data.plugins.paths : undefined)
  } catch {
    return []
  }
}

/**
 * The `plugins.paths` entries only the project's anvil.json names, for a caller without the configuration's layers
 * (read from the two files; see projectOnlyEntries for the rule): the project's list adds to the user's (see
 * trust/project-settings.ts), and what it adds came with the repository wherever it points; an entry the user's
 * own file names too stays the user's.
 */
const projectOnlyPaths = (root: string, env: Readonly<Record<string, string | undefined>>): ReadonlySet<string> => {
  const project = pathsIn(join(root, "anvil.json"))
  if (project.length === 0) return new Set()
  const home = userConfigHome(env)
  const user = new Set(home ? pathsIn(join(home, "anvil", "anvil.json")) : [])
  return new Set(project.filter((p) => !user.has(p)))
}

/** The name the project's Claude Code settings hooks are listed, trusted and disabled under. */
export const SETTINGS_HOOKS = "claude-settings"
/** The name your own Claude Code settings hooks are listed and disabled under. */
export const USER_SETTINGS_HOOKS = "claude-user-settings"

/** Finds every plugin (see the module comment); never throws. */

export const discoverPlugins = (input: {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** `plugins.paths` as configured (validated here). */
  readonly paths: unknown
  /** The configuration's layers, when the caller has them: which entries only the project names is read from them, not from the files again. */
  readonly layers?: ReadonlyArray<LayerData>
}): PluginPlaces => {
  const problems: Array<string> = []
  const rootReal = realOr(input.root)
  const home = input.env.HOME ?? input.env.USERPROFILE
  // `setting`: where a named entry came from, to report one that is a file but no plugin.
  const folders: Array<{ dir: string; source: PluginSource; named: boolean; setting?: string; manifest?: Readonly<Record<string, unknown>> }> = []
  const userDir = userPluginsDir(input.env)
  if (userDir) folders.push({ dir: userDir, source: "user", named: false })
  folders.push({ dir: join(input.root, ".anvil", "plugins"), source: "project", named: false })
  const configured = input.paths === undefined ? [] : Array.isArray(input.paths) ? input.paths : [input.paths]
  const fromProject =
    configured.length === 0 ? new Set<string>() : input.layers ? projectOnlyEntries(input.layers, "plugins") : projectOnlyPaths(input.root, input.env)
  for (const entry of configured) {
    if (typeof entry !== "string" || entry.trim() === "") {
      problems.push(`plugins.paths: ${JSON.stringify(entry)} is not a path`)
      continue
    }
    const given = entry.trim()
    if ((given === "~" || given.startsWith("~/")) && !home) {
      problems.push(`plugins.paths: '${given}' needs HOME, which is not set`)
      continue
    }
    const dir = given === "~" || given.startsWith("~/") ? join(home!, given.slice(1)) : resolve(input.root, given)
    if (!existsSync(dir)) {
      problems.push(`plugins.paths: ${dir} does not exist`)
      continue
    }
    folders.push({ dir, source: fromProject.has(given) || within(rootReal, realOr(dir)) ? "project" : "user", named: true, setting: "plugins.paths" })
  }
  // ANVIL_PLUGIN_DIRS: plugins (or folders of them) for this run, as the Agent SDK's `plugins` option names them.
  const extra = readPluginDirs(input.env.ANVIL_PLUGIN_DIRS)
  if (extra.problem !== undefined) problems.push(extra.problem)
  for (const given of extra.dirs) {
    const dir = resolve(input.root, given)
    if (!existsSync(dir)) problems.push(`ANVIL_PLUGIN_DIRS: ${dir} does not exist`)
    else folders.push({ dir, source: within(rootReal, realOr(dir)) ? "project" : "user", named: true, setting: "ANVIL_PLUGIN_DIRS" })
  }
  const installed = claudeInstalledPlugins(input.root, input.env)
  problems.push(...installed.problems)
  for (const plugin of installed.plugins) folders.push({ dir: plugin.path, source: plugin.source, named: true, ...(plugin.manifest ? { manifest: plugin.manifest } : {}) })
  // A folder or plugin reached twice (a plugins.paths entry naming a default folder, a link) counts once.
  const seenFolders = new Set<string>()
  const seenPlugins = new Set<string>()
  const all: Array<DiscoveredPlugin> = []
  for (const folder of folders) {
    // Most projects have no plugin folders: no failed realpath (and its exception) for them.
    if (!existsSync(folder.dir)) continue
    // Plugins described by their marketplace entry may share one folder (`source: "./"`): each counts by its name there.
    const described: DiscoveredPlugin | undefined = folder.manifest
      ? withUsableName({ name: String(folder.manifest.name), source: folder.source, kind: "claude", path: folder.dir, entry: undefined, folder: true, manifest: folder.manifest })
      : undefined
    const real = realOr(folder.dir) + (described ? `#${described.name}` : "")
    if (seenFolders.has(real)) continue
    seenFolders.add(real)
    const found = described ? [described] : scan(folder.dir, folder.source, folder.named)
    if (found.length === 0 && folder.setting !== undefined && !statSync(folder.dir).isDirectory()) {
      problems.push(`${folder.setting}: ${folder.dir} is not a plugin (a .ts/.js file, a folder with package.json or index.ts, or a Claude Code plugin folder)`)
    }
    for (const plugin of found) {
      const key = realOr(plugin.path) + (plugin.manifest ? `#${plugin.name}` : "")
      if (seenPlugins.has(key)) continue
      seenPlugins.add(key)
      all.push(plugin)
    }
  }
  // The project's `.claude/` settings hooks run as Claude Code runs them, behind the trust every project plugin needs
  // (the whole `.claude/` folder is hashed: the scripts they run usually live there).
  if (projectHookSettings(input.root).length > 0 && !all.some((p) => p.name === SETTINGS_HOOKS)) {
    all.push({ name: SETTINGS_HOOKS, source: "project", kind: "claude", path: join(input.root, ".claude"), entry: undefined, folder: true, settingsHooks: "project" })
  }
  // Yours run as Claude Code runs them, as your own plugins do: no trust to give.
  const userSettings = userHookSettings(input.root, input.env)
  if (userSettings.length > 0 && !all.some((p) => p.name === USER_SETTINGS_HOOKS)) {
    all.push({ name: USER_SETTINGS_HOOKS, source: "user", kind: "claude", path: dirname(userSettings[0]!), entry: undefined, folder: true, settingsHooks: "user" })
  }
  const rank = (p: DiscoveredPlugin) => (p.source === "user" ? 0 : 1)
  const plugins = all.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { plugins, problems }
}
