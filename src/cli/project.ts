import { ConfigError, readConfig, type ConfigShape } from "../config/config.ts"
import { mayHavePlugins } from "../plugins/places.ts"
import { projectRootOfSync } from "../workspace/project-root.ts"
import type { CliIO } from "./output.ts"

/** A project as a command sees it: its root and configuration. */
export interface Project {
  readonly root: string
  readonly config: ConfigShape
}

/**
 * The project root (`--root`, ANVIL_ROOT, or the nearest `.git`/`anvil.json`) and its configuration;
 * rejects with the ConfigError of a file that cannot be used.
 */
export const projectOf = async (io: CliIO, rootFlag: string | undefined): Promise<Project> => {
  const root = projectRootOfSync(io.cwd, rootFlag ?? io.env.ANVIL_ROOT)
  const config = await readConfig({ root, env: io.env })
  if (config instanceof ConfigError) throw config
  return { root, config }
}

/**
 * Whether the project has plugins (or plugin settings with problems to tell):
 * only then are the plugin host and its trust checks loaded.
 */
export const hasPlugins = async (project: Project, env: CliIO["env"]): Promise<boolean> => {
  const paths = project.config.get("plugins", {} as Record<string, unknown>).paths
  if (!mayHavePlugins(project.root, env, paths)) return false
  const { discoverPlugins } = await import("../plugins/discovery.ts")
  const found = discoverPlugins({ root: project.root, env, paths })
  return found.plugins.length > 0 || found.problems.length > 0
}
