import { existsSync } from "node:fs"
import { join } from "node:path"

/** The user's plugins folder, or undefined without XDG_CONFIG_HOME and HOME. */
export const userPluginsDir = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const home = env.HOME ?? env.USERPROFILE
  const configHome = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined)
  return configHome ? join(configHome, "anvil", "plugins") : undefined
}

/**
 * Whether plugins may be anywhere (`plugins.paths` is set, or the user's or
 * the project's plugins folder exists): when not, the plugin discovery and
 * host need not be loaded at all.
 */
export const mayHavePlugins = (root: string, env: Readonly<Record<string, string | undefined>>, paths: unknown): boolean => {
  const user = userPluginsDir(env)
  return paths !== undefined || existsSync(join(root, ".anvil", "plugins")) || (user !== undefined && existsSync(user))
}
