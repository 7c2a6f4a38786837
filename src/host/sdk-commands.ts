import { Effect, type Layer } from "effect"
import type { Path } from "effect/Path"
import { Config, type ConfigShape } from "../config/config.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { localCommands, type SlashCommand } from "../plugins/claude-commands.ts"
import type { DiscoveredPlugin } from "../plugins/discovery.ts"
import { commandsOf, skillFoldersOf } from "../plugins/plugin-extras.ts"
import { PlatformLive } from "../runtime.ts"
import { userInvocable } from "../skills/skill-arguments.ts"
import { loadSkillCatalog, type Skill } from "../skills/skill-catalog.ts"
import type { FileSystem } from "../workspace/file-system.ts"

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

/** The skills the session's skill tool would load (a configuration that cannot be read gives none: opening the session reports it). */
const catalogSkills = (root: string, plugins: ReadonlyArray<DiscoveredPlugin>, config: ConfigShape): Promise<ReadonlyArray<Skill>> =>
  Effect.runPromise(
    loadSkillCatalog(root, embeddedAssets, skillFoldersOf(plugins)).pipe(
      Effect.map((c) => c.skills),
      Effect.provideService(Config, config),
      Effect.provide(PlatformLive as Layer.Layer<FileSystem | Path>),
      Effect.orElseSucceed(() => []),
    ),
  )

/**
 * The commands a session here has, before it opens (the `initialize` answer): the project's and the user's
 * `.claude/commands`, then those of the Claude Code plugins that would load (enabled, and trusted when they came
 * with the project), named `plugin:command` as Claude Code names them, then the skills a person may run as
 * `/name args` (every skill the skill tool loads but those whose front matter says `user-invocable: false`, and
 * those whose name a command holds). Without a configuration (one that cannot be read) the plugins' and the skills
 * are left out; opening the session reports it. `plugins`: the active Claude Code plugins (`activeClaudePlugins`),
 * found once for the whole `initialize` answer.
 */
export const sdkCommands = async (
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  config: ConfigShape | undefined,
  plugins: ReadonlyArray<DiscoveredPlugin>,
): Promise<Array<SdkCommand>> => {
  const local = localCommands(root, env)
  const fromPlugins: ReadonlyArray<SlashCommand> = config === undefined ? [] : commandsOf(plugins)
  const skills = config === undefined ? [] : await catalogSkills(root, plugins, config)
  const taken = new Set(local.map((c) => c.name))
  const described = (c: SlashCommand) => ({ description: c.description, argumentHint: c.argumentHint ?? "" })
  const commands: Array<SdkCommand> = [
    ...local.map((c) => ({ name: c.name, ...described(c) })),
    ...fromPlugins.map((c) => {
      // The first command of a name wins (expandSlashCommand): a plain name an earlier one holds is not this one's.
      const alias = taken.has(c.name) ? [] : [c.name]
      taken.add(c.name)
      return { name: sdkCommandName(c), ...described(c), ...(alias.length > 0 ? { aliases: alias } : {}) }
    }),
  ]
  for (const skill of skills) {
    if (taken.has(skill.name) || !userInvocable(skill)) continue
    const hint = skill.fields["argument-hint"]
    commands.push({ name: skill.name, description: skill.description, argumentHint: typeof hint === "string" ? hint : Array.isArray(hint) ? hint.join(" ") : "" })
  }
  return commands
}
