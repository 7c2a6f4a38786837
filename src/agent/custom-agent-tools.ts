import type { Tool } from "../tool-framework/definition.ts"
import { makeRegistry, type ToolSource } from "../tool-framework/registry.ts"
import type { CustomAgent } from "../tool-framework/subagent.ts"

/**
 * What a custom agent (a `.claude/agents/` file, a plugin's, the SDK's `agents`) may call: never task or question (a
 * subagent neither starts another nor asks the person), only what its front matter's `tools` lists when it lists
 * any, and nothing `disallowedTools` names. An MCP server's tools are judged the same way (`mcp__github__create_issue`,
 * or `mcp__github` for all of that server's), as Claude Code limits them: an agent given `tools: Read, Grep` has no
 * MCP tool either.
 */
export const agentMayCall = (agent: CustomAgent | undefined, tool: Tool): boolean => {
  if (!agent) return true
  if (tool.name === "task" || tool.name === "question") return false
  // A stand-in for a tool of a server still starting carries the name as the call wrote it (its case may differ):
  // once ready, the tool it stands for is looked up again and judged under its own name.
  const pending = tool.ready !== undefined
  const named = (list: ReadonlyArray<string>) =>
    list.some((entry) => {
      const [name, wanted] = pending ? [tool.name.toLowerCase(), entry.toLowerCase()] : [tool.name, entry]
      return name === wanted || (/^mcp__.+/.test(wanted) && !wanted.slice(5).includes("__") && name.startsWith(`${wanted}__`))
    })
  if (agent.tools !== undefined && !named(agent.tools)) return false
  return !(agent.disallowedTools !== undefined && !pending && named(agent.disallowedTools))
}

/** Tool sources (an MCP server's tools) seen through {@link agentMayCall}. */
export const agentSources = (agent: CustomAgent | undefined, sources: ReadonlyArray<ToolSource>): ReadonlyArray<ToolSource> =>
  agent === undefined
    ? sources
    : sources.map((source) => ({
        tools: () => source.tools().filter((t) => agentMayCall(agent, t)),
        lookup: (name) => {
          const tool = source.lookup(name)
          return tool && agentMayCall(agent, tool) ? tool : undefined
        },
      }))

/**
 * The refusal of a tool the agent's front matter leaves out (after the profile's own, `withheld`): PERMISSION_DENIED
 * saying why, rather than "unknown tool" with a guess at another tool to call.
 */
export const agentWithheld = (
  agent: CustomAgent | undefined,
  all: ReadonlyArray<Tool>,
  sources: ReadonlyArray<ToolSource>,
  withheld: (name: string) => string | undefined,
): ((name: string) => string | undefined) => {
  if (agent === undefined) return withheld
  const builtIn = makeRegistry(all)
  return (name) => {
    const said = withheld(name)
    if (said !== undefined) return said
    const tool = builtIn.lookup(name) ?? sources.reduce<Tool | undefined>((found, s) => found ?? s.lookup(name), undefined)
    if (tool === undefined || agentMayCall(agent, tool)) return undefined
    const why =
      tool.name === "task" || tool.name === "question"
        ? "a subagent neither starts another nor asks the person"
        : `its front matter's ${agent.tools !== undefined && !agentMayCall({ ...agent, disallowedTools: undefined }, tool) ? "tools list does not name it" : "disallowedTools names it"}`
    return `The agent '${agent.name}' may not call ${tool.name}: ${why}. Do the work with the tools it has, or say in the answer what is needed.`
  }
}
