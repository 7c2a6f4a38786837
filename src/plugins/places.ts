import { readdirSync } from "node:fs"
import { join } from "node:path"
import { userConfigHome } from "../workspace/state-dir.ts"

/** The user's plugins folder, or undefined without XDG_CONFIG_HOME and HOME. */
export const userPluginsDir = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const configHome = userConfigHome(env)
  return configHome ? join(configHome, "anvil", "plugins") : undefined
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
 * Whether plugins may be anywhere (`plugins.paths` is set, or the user's or
 * the project's plugins folder has an entry that may be one): when not, the
 * plugin discovery and host need not be loaded at all.
 */
export const mayHavePlugins = (root: string, env: Readonly<Record<string, string | undefined>>, paths: unknown): boolean => {
  const user = userPluginsDir(env)
  return paths !== undefined || mayHold(join(root, ".anvil", "plugins")) || (user !== undefined && mayHold(user))
}
