import { Predicate } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs"
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path"
import { userConfigHome } from "../workspace/state-dir.ts"
import { pathText, readJsonPart, type JsonPart, type JsonPath } from "./json-part.ts"

/**
 * Where a Claude Code plugin keeps its parts, as Claude Code's plugin reference
 * says: each part has a default place (`commands/`, `agents/`, `skills/`,
 * `hooks/hooks.json`, `.mcp.json`), and the manifest may name others — one
 * path or a list, relative to the plugin's folder. `commands` and `agents`
 * replace their default folder, `skills` adds to it, `hooks` and `mcpServers`
 * (paths, or objects written in the manifest) merge with their default file.
 * A path outside the plugin's folder, or one that does not exist, is not
 * read and is named in `warnings`.
 */

/** A plugin's JSON file (plugin.json, hooks.json, .mcp.json, package.json); a leading byte-order mark is skipped, as Claude Code skips it. */
export const readJson = (file: string): unknown => JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""))

/** The manifest, or undefined when it cannot be read (reading the plugin itself then reports why). */
export const readManifestQuietly = (dir: string): Record<string, unknown> | undefined => {
  try {
    const manifest = readJson(join(dir, ".claude-plugin", "plugin.json"))
    return Predicate.isObject(manifest) ? manifest : undefined
  } catch {
    return undefined
  }
}

const expandRoot = (dir: string) => (s: string) => s.replaceAll("${CLAUDE_PLUGIN_ROOT}", dir)

/**
 * `${CLAUDE_PLUGIN_DATA}`: a plugin's folder for what outlives its updates (installed packages, caches) — Claude
 * Code's `~/.claude/plugins/data/<id>/`; anvil keeps it in its own config folder, `anvil/plugin-data/<name>`.
 */
export const pluginDataDir = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const config = userConfigHome(env)
  return config ? join(config, "anvil", "plugin-data", name.replace(/[^A-Za-z0-9_-]/g, "-")) : undefined
}

/** Makes the data folder (on first reference, as Claude Code does); false when it cannot be made. */
export const ensureDataDir = (data: string | undefined): boolean => {
  if (data === undefined) return false
  try {
    mkdirSync(data, { recursive: true })
    return true
  } catch {
    return false
  }
}

/** `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` filled in (the data folder made when named). */
export const pluginVars =
  (dir: string, data: string | undefined) =>
  (s: string): string => {
    const rooted = expandRoot(dir)(s)
    return rooted.includes("${CLAUDE_PLUGIN_DATA}") && ensureDataDir(data) ? rooted.replaceAll("${CLAUDE_PLUGIN_DATA}", data!) : rooted
  }

/** The paths a manifest key names (a string or a list of them), resolved; undefined when the key names none. */
const namedPaths = (dir: string, value: unknown, key: string, warnings: Array<string>): Array<string> | undefined => {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined
  if (list === undefined) return undefined
  const out: Array<string> = []
  for (const entry of list) {
    const path = resolve(dir, expandRoot(dir)(entry))
    const rel = relative(dir, path)
    if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) warnings.push(`plugin.json: ${key} path escapes the plugin's folder, so it was not read: ${entry}`)
    else if (!existsSync(path)) warnings.push(`plugin.json: ${key} path not found: ${entry}`)
    else out.push(path)
  }
  return out
}

/** The files and folders of slash commands: the manifest's `commands`, else `commands/`. */
export const commandPaths = (dir: string, manifest: Record<string, unknown> | undefined, warnings: Array<string> = []): Array<string> =>
  namedPaths(dir, manifest?.commands, "commands", warnings) ?? [join(dir, "commands")]

/** The files and folders of subagents: the manifest's `agents`, else `agents/`. */
export const agentPaths = (dir: string, manifest: Record<string, unknown> | undefined, warnings: Array<string> = []): Array<string> =>
  namedPaths(dir, manifest?.agents, "agents", warnings) ?? [join(dir, "agents")]

/**
 * The folders skills are read from (each a folder of skills or one skill's own folder): `skills/`, then the
 * manifest's `skills`; a plugin with neither whose own folder holds a SKILL.md is that one skill. A marketplace
 * entry with `"strict": false` is the whole definition, as Claude Code reads it: the skills it names replace `skills/`.
 */
export const skillDirs = (dir: string, manifest: Record<string, unknown> | undefined, warnings: Array<string> = []): Array<string> => {
  const named = namedPaths(dir, manifest?.skills, "skills", warnings)
  const own = existsSync(join(dir, "skills")) && !(manifest?.strict === false && named !== undefined) ? [join(dir, "skills")] : []
  if (own.length === 0 && named === undefined && existsSync(join(dir, "SKILL.md"))) return [dir]
  // A manifest that names `./skills/` itself reads it once.
  return [...new Set([...own, ...(named ?? []).filter((p) => isFolder(p))])]
}

const isFolder = (p: string) => {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

/**
 * The skill names a list of skill folders holds (a folder that is itself a skill counts as one), each its folder's
 * name; `root`, the plugin's own folder when it is the one skill, is named by what `root.name` reads (its front matter).
 */
export const skillNames = (dirs: ReadonlyArray<string>, readdir: (d: string) => ReadonlyArray<string>, root?: { readonly dir: string; readonly name: (file: string) => string }): Array<string> =>
  dirs.flatMap((d) =>
    d === root?.dir
      ? [root.name(join(d, "SKILL.md"))]
      : existsSync(join(d, "SKILL.md"))
        ? [basename(d)]
        : readdir(d).filter((n) => !n.startsWith(".") && existsSync(join(d, n, "SKILL.md"))),
  )

/** One source of hooks or servers: the file it came from (or the manifest), its JSON, and where a field of it is. */
interface JsonSource {
  readonly file: string
  readonly json: unknown
  /** `FILE:LINE:COLUMN: path` for a path inside `json`. */
  readonly at: (path: JsonPath) => string
}

/**
 * The default file, then what the manifest's `key` names: paths to JSON files, objects written in the
 * manifest, or a list of both. A file that is not valid JSON is left out and named in `warnings` with its
 * line and column and what it costs (`lost`): the plugin's other parts still load.
 */
const mergedSources = (dir: string, manifest: Record<string, unknown>, key: string, defaultFile: string, warnings: Array<string>, lost: string): Array<JsonSource> => {
  const sources: Array<JsonSource> = []
  const read = (file: string) => {
    const part = readJsonPart(file)
    if ("problem" in part) warnings.push(`${part.problem}, so ${lost}; the plugin's other parts loaded. Fix the file, then check it with 'anvil plugins check ${dir}'`)
    else sources.push({ file, json: part.json, at: part.at })
  }
  const manifestFile = join(dir, ".claude-plugin", "plugin.json")
  const value = manifest[key]
  const entries = Array.isArray(value) ? value : value === undefined ? [] : [value]
  const paths = namedPaths(dir, entries.filter((e) => typeof e === "string"), key, warnings) ?? []
  // A manifest that names the default file itself reads it once.
  if (existsSync(defaultFile) && !paths.includes(defaultFile)) read(defaultFile)
  for (const path of paths) read(path)
  // Objects written in the manifest are placed in it (read again only to place a wrong field).
  let manifestPart: JsonPart | undefined
  const inManifest = (path: JsonPath) => {
    manifestPart ??= readJsonPart(manifestFile)
    return "at" in manifestPart ? manifestPart.at(path) : `${manifestFile}: ${pathText(path)}`
  }
  entries.forEach((entry, i) => {
    const base: JsonPath = Array.isArray(value) ? [key, i] : [key]
    if (Predicate.isObject(entry)) sources.push({ file: manifestFile, json: entry, at: (path) => inManifest([...base, ...path]) })
  })
  return sources
}

/** A hooks file (`hooks/hooks.json`, the manifest's `hooks`): its events, and where a field of them is. */
export interface HookSource {
  readonly file: string
  /** The value that should map event names to lists of matcher groups (checked by its reader). */
  readonly events: unknown
  /** `FILE:LINE:COLUMN: hooks.PreToolUse[0]` for a path below the events. */
  readonly at: (path: JsonPath) => string
}

/** The hooks files (`hooks/hooks.json`, then the manifest's `hooks`), each with its events. */
export const hookSources = (dir: string, manifest: Record<string, unknown>, warnings: Array<string>): Array<HookSource> =>
  mergedSources(dir, manifest, "hooks", join(dir, "hooks", "hooks.json"), warnings, "none of its hooks run").map((s) => {
    // `{"hooks": {Event: [...]}}` as hooks.json writes it, or the events themselves (the manifest's inline form).
    const wrapped = Predicate.isObject(s.json) && "hooks" in s.json
    const events = wrapped ? (s.json as Record<string, unknown>).hooks : s.json
    const base: JsonPath = wrapped ? ["hooks"] : []
    return { file: s.file, events, at: (path) => s.at([...base, ...path]) }
  })

/** Claude Code settings files (the project's two, or yours), each with the `hooks` it declares. */
export const settingsHookSources = (files: ReadonlyArray<string>, warnings: Array<string>, disabled: boolean): Array<HookSource> => {
  const sources = files.flatMap((file) => {
    const part = readJsonPart(file)
    if ("problem" in part) {
      warnings.push(`${part.problem}, so none of its hooks run. Fix the file`)
      return []
    }
    if (!Predicate.isObject(part.json)) return []
    return "hooks" in part.json ? [{ file, events: part.json.hooks, at: (path: JsonPath) => part.at(["hooks", ...path]) }] : []
  })
  // Claude Code's `disableAllHooks`, as its merged settings hold it (see allSettingsHooksDisabled).
  return disabled ? [] : sources
}

/**
 * The MCP servers by name (`.mcp.json`, then the manifest's `mcpServers`; a later one wins for a name), with
 * `${CLAUDE_PLUGIN_ROOT}` (and `${CLAUDE_PLUGIN_DATA}`, by `expand`) filled in. A file may wrap them in `mcpServers` or hold them at its top level, as many
 * published plugins' `.mcp.json` do; so may the manifest's objects.
 */
export const mcpServerEntries = (
  dir: string,
  manifest: Record<string, unknown>,
  warnings: Array<string>,
  expand: (s: string) => string = expandRoot(dir),
): Array<[string, Record<string, unknown>]> => {
  const byName = new Map<string, Record<string, unknown>>()
  for (const { json } of mergedSources(dir, manifest, "mcpServers", join(dir, ".mcp.json"), warnings, "none of its MCP servers start")) {
    const servers = Predicate.isObject(json) && Predicate.isObject(json.mcpServers) ? json.mcpServers : Predicate.isObject(json) ? json : {}
    for (const [name, config] of Object.entries(servers)) {
      if (Predicate.isObject(config)) byName.set(name, expandDeep(config, expand) as Record<string, unknown>)
    }
  }
  return [...byName]
}

/** `expand` applied to every string of a server's settings. */
const expandDeep = (value: unknown, expand: (s: string) => string): unknown =>
  typeof value === "string"
    ? expand(value)
    : Array.isArray(value)
      ? value.map((v) => expandDeep(v, expand))
      : Predicate.isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, expand)]))
        : value
