import type { ConfigShape } from "../config/config.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { loadPlugins, pluginNotices, type PluginSet } from "../plugins/plugin-host.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import type { FreezeReport } from "../plugins/watchdog.ts"

export { FREEZE_MESSAGE } from "../plugins/watchdog.ts"

export { toolsWithPlugins } from "../plugins/plugin-host.ts"
import { builtinToolEntries } from "../tools/builtin.ts"
import type { CliIO } from "./output.ts"
import { projectOf } from "./project.ts"

/** Every built-in tool's names and aliases, without loading the tools. */
export const builtinNames = (): ReadonlyArray<string> => builtinToolEntries.flatMap((e) => e.names)

/**
 * The plugins of a project whose root and configuration are known. Plugins
 * that need attention (untrusted, broken) and hook failures are told on
 * stderr unless `quiet`.
 */
export const pluginsFor = async (
  io: CliIO,
  root: string,
  config: ConfigShape,
  options: {
    readonly trustProject?: boolean
    readonly quiet?: boolean
    readonly confineProjectHooks?: CommandConfinement
    /** What standard output gets if a plugin freezes the command (plugins/watchdog.ts). */
    readonly freezeReport?: FreezeReport
  } = {},
): Promise<PluginSet> => {
  const tell = (m: string) => {
    if (!options.quiet) io.err(`anvil: ${m}\n`)
  }
  const plugins = await loadPlugins({
    root,
    env: io.env,
    config,
    builtinNames: builtinNames(),
    ...(options.trustProject ? { trustProject: true } : {}),
    ...(options.confineProjectHooks ? { confineProjectHooks: options.confineProjectHooks } : {}),
    ...(options.freezeReport ? { freezeReport: options.freezeReport } : {}),
    onProblem: tell,
  })
  for (const notice of pluginNotices(plugins)) tell(notice)
  return plugins
}

/**
 * The project, its configuration in force (the project file's untrusted settings left out, said on stderr unless
 * `quiet`) and its plugins, for a CLI command that has no tool runtime. `strict`: see CommandConfigOptions.
 */
export const cliPlugins = async (
  io: CliIO,
  rootFlag: string | undefined,
  options: { readonly trustProject?: boolean; readonly quiet?: boolean; readonly strict?: boolean } = {},
): Promise<{ root: string; config: ConfigShape; plugins: PluginSet }> => {
  const { root, config } = await projectOf(io, rootFlag, { trusted: true, ...(options.strict ? { strict: true } : {}) })
  const ignored = ignoredSettingsNotice(config.ignored, "plugins")
  if (ignored && !options.quiet) io.err(`anvil: warning: ${ignored}\n`)
  return { root, config, plugins: await pluginsFor(io, root, config, options) }
}
