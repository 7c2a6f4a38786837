import { Effect } from "effect"
import { ConfigError, readConfig } from "../config/config.ts"
import { trustedConfig } from "../runtime.ts"
import { localCommands, type SlashCommand } from "../plugins/claude-commands.ts"
import { pluginCommands } from "../plugins/plugin-extras.ts"

/** A slash command as the Agent SDK's `supportedCommands()` lists it. */
export interface SdkCommand {
  readonly name: string
  readonly description: string
  readonly argumentHint: string
  /** Other names that reach it (a plugin command's own name, when no earlier command has it). */
  readonly aliases?: ReadonlyArray<string>
}

/** A command's name as Claude Code gives it to programs: a plugin's as `plugin:command`. */
export const sdkCommandName = (command: SlashCommand): string => (command.plugin !== undefined ? `${command.plugin}:${command.name}` : command.name)

/**
 * The commands a session here has, before it opens (the `initialize` answer): the project's and the user's
 * `.claude/commands`, then those of the Claude Code plugins that would load (enabled, and trusted when they came
 * with the project), named `plugin:command` as Claude Code names them. A configuration that cannot be read leaves
 * the plugins' out; opening the session reports it.
 */
export const sdkCommands = async (root: string, env: Readonly<Record<string, string | undefined>>): Promise<Array<SdkCommand>> => {
  const local = localCommands(root, env)
  const read = await readConfig({ root, env })
  // The configuration in force, as the session will have it (the project's plugins.disabled adds to the user's).
  const config = read instanceof ConfigError ? read : await Effect.runPromise(trustedConfig(read, root))
  const fromPlugins: ReadonlyArray<SlashCommand> = config instanceof ConfigError ? [] : pluginCommands({ root, env, config })
  const taken = new Set(local.map((c) => c.name))
  const described = (c: SlashCommand) => ({ description: c.description, argumentHint: c.argumentHint ?? "" })
  return [
    ...local.map((c) => ({ name: c.name, ...described(c) })),
    ...fromPlugins.map((c) => {
      // The first command of a name wins (expandSlashCommand): a plain name an earlier one holds is not this one's.
      const alias = taken.has(c.name) ? [] : [c.name]
      taken.add(c.name)
      return { name: sdkCommandName(c), ...described(c), ...(alias.length > 0 ? { aliases: alias } : {}) }
    }),
  ]
}
