import { Effect } from "effect"
import { ConfigError, ConfigStrictError, readConfig, type ConfigShape } from "../config/config.ts"
import { mayHavePlugins } from "../plugins/places.ts"
import { projectRootOfSync } from "../workspace/project-root.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import type { CliIO } from "./output.ts"

/** A project as a command sees it: its root and configuration. */
export interface Project {
  readonly root: string
  readonly config: ConfigShape
}

/** How a command reads its configuration. */
export interface CommandConfigOptions {
  /** `--strict`: anvil.json's (and the environment's) warnings are printed and stop the command (ConfigStrictError: exit 2) before it does anything. */
  readonly strict?: boolean
  /** The configuration in force: the project file's settings that need the user's trust left out until trusted (trust/project-settings.ts). */
  readonly trusted?: boolean
}

/**
 * The configuration of the project at `root` as a command uses it (see CommandConfigOptions); rejects with the
 * ConfigError of a file that cannot be used, or the ConfigStrictError of warnings under `--strict`.
 */
export const commandConfig = async (io: CliIO, root: string, options: CommandConfigOptions = {}): Promise<ConfigShape> => {
  const config = await readConfig({ root, env: io.env })
  if (config instanceof ConfigError) throw config
  if (options.strict && config.warnings.length > 0) {
    printConfigWarnings(io, config.warnings)
    throw new ConfigStrictError({ count: config.warnings.length })
  }
  if (!options.trusted) return config
  const { trustedConfig } = await import("../runtime.ts")
  return Effect.runPromise(trustedConfig(config, root))
}

/**
 * The project root (`--root`, ANVIL_ROOT, or the nearest `.git`/`anvil.json`) and its configuration
 * (see commandConfig).
 */
export const projectOf = async (io: CliIO, rootFlag: string | undefined, options: CommandConfigOptions = {}): Promise<Project> => {
  const root = projectRootOfSync(io.cwd, rootFlag ?? io.env.ANVIL_ROOT)
  return { root, config: await commandConfig(io, root, options) }
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
