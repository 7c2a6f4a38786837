import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { join, sep } from "node:path"
import { claudeConfigFolder, userConfigHome } from "../workspace/state-dir.ts"

/** The user's plugins folder, or undefined without XDG_CONFIG_HOME and HOME. */
export const userPluginsDir = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const configHome = userConfigHome(env)
  return configHome ? join(configHome, "anvil", "plugins") : undefined
}

/**
 * Claude Code's config folder (`$CLAUDE_CONFIG_DIR` when absolute, else `~/.claude`), or undefined without HOME: the
 * command sandbox's rule (workspace/state-dir.ts), so that the folder whose hooks run is the one it guards.
 */
export const claudeConfigDir = (env: Readonly<Record<string, string | undefined>>): string | undefined =>
  claudeConfigFolder(env.HOME || env.USERPROFILE, env)

/** Whether a settings file mentions `enabledPlugins` (a text search: parsing it is left to discovery). */
const mentionsEnabledPlugins = (file: string): boolean => {
  try {
    return readFileSync(file, "utf8").includes('"enabledPlugins"')
  } catch {
    return false
  }
}

/**
 * Whether Claude Code has installed plugins that its settings may enable: a stat and a few
 * small reads, so a machine with Claude Code but no plugins keeps anvil's cheap start-up.
 */
const mayHaveClaudeInstalls = (root: string, env: Readonly<Record<string, string | undefined>>): boolean => {
  const dir = claudeConfigDir(env)
  if (dir === undefined || !existsSync(join(dir, "plugins"))) return false
  return [join(dir, "settings.json"), join(root, ".claude", "settings.json"), join(root, ".claude", "settings.local.json")].some(mentionsEnabledPlugins)
}

/**
 * The project's Claude Code settings files that declare hooks (`.claude/settings.json`, then
 * `.claude/settings.local.json`): a text search for `"hooks"`, as for `enabledPlugins` above; reading them is
 * left to the plugin that runs them.
 */
export const projectHookSettings = (root: string): ReadonlyArray<string> =>
  [join(root, ".claude", "settings.json"), join(root, ".claude", "settings.local.json")].filter((file) => {
    try {
      return readFileSync(file, "utf8").includes('"hooks"')
    } catch {
      return false
    }
  })

/**
 * Your Claude Code settings file when it declares hooks (`~/.claude/settings.json`, or under `$CLAUDE_CONFIG_DIR`; Claude
 * Code reads no other user settings file), unless it lies inside the project: a project that is also the home folder
 * keeps its settings behind the project's trust.
 */
export const userHookSettings = (root: string, env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const dir = claudeConfigDir(env)
  if (dir === undefined) return []
  const file = join(dir, "settings.json")
  try {
    if (!readFileSync(file, "utf8").includes('"hooks"')) return []
    const project = realpathSync(root)
    const real = realpathSync(file)
    return real === project || real.startsWith(project.endsWith(sep) ? project : project + sep) ? [] : [file]
  } catch {
    return []
  }
}

/**
 * Claude Code's `disableAllHooks` as its merged settings hold it: the last of your settings, the project's
 * `.claude/settings.json` and `.claude/settings.local.json` that sets it wins, and `true` turns off the hooks of every
 * settings file. Your own hooks (`scope` "user") are turned off by your file alone: the project's came with the
 * repository, and a repository does not switch off the guards you set. A file that is not JSON says nothing here (its
 * own warning is given where its hooks are read).
 */
export const allSettingsHooksDisabled = (root: string, env: Readonly<Record<string, string | undefined>>, scope: "project" | "user"): boolean => {
  const dir = claudeConfigDir(env)
  const project = scope === "project" ? [join(root, ".claude", "settings.json"), join(root, ".claude", "settings.local.json")] : []
  let disabled = false
  for (const file of [...(dir ? [join(dir, "settings.json")] : []), ...project]) {
    try {
      const json: unknown = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""))
      const value = typeof json === "object" && json !== null ? (json as Record<string, unknown>).disableAllHooks : undefined
      if (typeof value === "boolean") disabled = value
    } catch {
      // Missing or not JSON: it sets nothing.
    }
  }
  return disabled
}

/** Names in a plugins folder that are never plugins: hidden (`.`), private (`_`) and `node_modules`. */
export const notAPluginName = (name: string): boolean => name.startsWith(".") || name.startsWith("_") || name === "node_modules"

/** Whether a default plugins folder has an entry that may be a plugin (a missing or empty folder has none). */
const mayHold = (dir: string): boolean => {
  try {
    return readdirSync(dir).some((name) => !notAPluginName(name))
  } catch {
    return false
  }
}

/**
 * Whether plugins may be anywhere (`plugins.paths` is set, the user's or
 * the project's plugins folder has an entry that may be one, or Claude Code
 * has installed plugins that its settings may enable): when not, the
 * plugin discovery and host need not be loaded at all.
 */
export const mayHavePlugins = (root: string, env: Readonly<Record<string, string | undefined>>, paths: unknown): boolean => {
  const user = userPluginsDir(env)
  return (
    paths !== undefined ||
    Boolean(env.ANVIL_PLUGIN_DIRS) ||
    mayHold(join(root, ".anvil", "plugins")) ||
    (user !== undefined && mayHold(user)) ||
    mayHaveClaudeInstalls(root, env) ||
    projectHookSettings(root).length > 0 ||
    userHookSettings(root, env).length > 0
  )
}
