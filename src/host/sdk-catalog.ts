import type { ConfigShape } from "../config/config.ts"
import { chooseModelId } from "../llm/resolve-model.ts"
import type { DiscoveredPlugin } from "../plugins/discovery.ts"
import { firstOfEachName, localAgents, readPluginAgents } from "../plugins/claude-agents.ts"
import { PROFILES } from "../agent/profiles.ts"
import { sdkAgents } from "./sdk-agents.ts"

/**
 * What `initialize` answers about the session's models and subagents (the SDK's `supportedModels()` and
 * `supportedAgents()`), as far as anvil can say it truthfully before the session opens.
 */

/**
 * The program's `skills` option (in `initialize`; `"all"` sends none): only the skills it names are offered,
 * loaded and run as `/name`, through anvil's `skills.only` setting.
 */
export const skillsOnly = (initialize: Readonly<Record<string, unknown>>): { readonly skills: { readonly only: ReadonlyArray<string> } } | Record<string, never> =>
  Array.isArray(initialize.skills) ? { skills: { only: initialize.skills.filter((s): s is string => typeof s === "string") } } : {}

/** One model as `supportedModels()` lists it. */
export interface SdkModel {
  /** What `setModel` and `--model` take. */
  readonly value: string
  readonly displayName: string
  readonly description: string
}

/** One subagent as `supportedAgents()` lists it. */
export interface SdkAgent {
  readonly name: string
  readonly description: string
  /** The model it runs on: always the session's. */
  readonly model: "inherit"
}

/**
 * The model the session will use: the program's `--model` (or `setModel` before the first message), else anvil's
 * configured one (ANVIL_MODEL, anvil.json `model`, the provider the environment sets up). anvil cannot list the
 * models a provider serves without asking it, so this is the one it knows; `setModel` takes any `provider/model`.
 * None when no model is configured (the first message then fails, saying what to set).
 */
export const sdkModels = (config: ConfigShape | undefined, wanted: string | undefined): Array<SdkModel> => {
  if (config === undefined) return []
  const id = chooseModelId(config, wanted)
  if (typeof id !== "string") return []
  const slash = id.indexOf("/")
  const [provider, name] = slash > 0 ? [id.slice(0, slash), id.slice(slash + 1)] : ["", id]
  return [
    {
      value: id,
      displayName: name,
      description: `${wanted !== undefined ? "The model the program chose" : "anvil's configured model"}${provider !== "" ? `, served by ${provider}` : ""}. setModel takes any provider/model anvil can reach.`,
    },
  ]
}

/**
 * The subagents the Task tool runs, in the session's order: anvil's `explore`, the project's `.claude/agents`
 * (`withProject`: settingSources name the project), the program's own (`agents` in `initialize` or `--agents`), the
 * user's `~/.claude/agents`, then those of the Claude Code plugins that would load (`plugins`, from
 * `activeClaudePlugins`, named `plugin:agent`); the first of a name wins.
 */
export const sdkAgentList = (
  sources: ReadonlyArray<unknown>,
  plugins: ReadonlyArray<DiscoveredPlugin>,
  local: { root: string; env: Readonly<Record<string, string | undefined>>; withProject: boolean },
): Array<SdkAgent> => {
  const fromPlugins = plugins.flatMap((p) => readPluginAgents(p.path, p.manifest).agents.map((a) => ({ ...a, name: `${p.name}:${a.name}` })))
  const files = localAgents(local.root, local.env, local.withProject)
  const agents = firstOfEachName(files.project.agents, sdkAgents(sources, () => undefined), files.user.agents, fromPlugins)
  // An agent named explore takes the place of anvil's own, as the task tool runs it.
  const builtin = agents.some((a) => a.name === "explore") ? [] : [{ name: "explore", description: `Explores the code to answer a question: ${PROFILES.explore.description}` }]
  return [...builtin, ...agents].map((a) => ({ name: a.name, description: a.description, model: "inherit" as const }))
}
