import type { HookRunner } from "../plugins/hook-runner.ts"
import type { RuntimeOptions } from "../runtime.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { CliIO } from "./output.ts"
import type { ToolCommandArgs } from "./tool-args.ts"
import { frozenCallReport } from "./tool-command.ts"

/**
 * The plugins of one `anvil tool` call, loaded once its root and configuration are known: their tools joined to
 * `tools` (all the built-in ones when the call names neither a built-in nor a plugin tool, for the list of what
 * exists, unless `keepTools`) with their hooks around every tool. `loaded` hears of the hooks, for tools that come
 * from elsewhere (an MCP server's).
 */
export const pluginToolsFor = (
  args: ToolCommandArgs,
  io: CliIO,
  options: { readonly named?: boolean; readonly keepTools?: boolean; readonly loaded?: (hooks: HookRunner, onProblem: (message: string) => void) => void } = {},
): NonNullable<RuntimeOptions["prepareTools"]> =>
  async ({ root, config, tools, sandbox }) => {
    // Imported here: the plugin host stays out of the modules every command loads.
    const { FREEZE_MESSAGE, pluginsFor, toolsWithPlugins } = await import("./plugin-setup.ts")
    const { confinementOf } = await import("../sandbox/sandbox.ts")
    const plugins = await pluginsFor(io, root, config, {
      confineProjectHooks: confinementOf(sandbox),
      freezeReport: frozenCallReport(args, FREEZE_MESSAGE),
      ...(args.trustPlugins ? { trustProject: true } : {}),
    })
    const onProblem = (m: string) => io.err(`anvil: ${m}\n`)
    options.loaded?.(plugins.hooks, onProblem)
    const fromPlugin = plugins.tools.some((t) => t.name.toLowerCase() === args.name.trim().toLowerCase())
    const base: ReadonlyArray<Tool> = options.named || options.keepTools || fromPlugin ? tools : await (await import("../tools/builtin.ts")).loadBuiltinTools()
    return toolsWithPlugins(base, plugins, onProblem)
  }
