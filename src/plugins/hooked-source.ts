import type { Tool } from "../tool-framework/definition.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import { withHooks, type HookRunner } from "./hook-runner.ts"

/**
 * Tools found while a session runs (an MCP server's) with the plugins' tool hooks around them, as the built-in
 * tools have them: a guard that matches `mcp__.*` (a Claude Code hook, a plugin's `tool.before`, an Agent SDK
 * program's PreToolUse) must see those calls too. Each tool is wrapped once, so it stays one tool.
 */
export const sourceWithHooks = (source: ToolSource, hooks: HookRunner, onProblem: (message: string) => void): ToolSource => {
  if (!hooks.has("tool.before") && !hooks.has("tool.after")) return source
  const wrapped = new WeakMap<Tool, Tool>()
  const wrap = (tool: Tool) => {
    let hooked = wrapped.get(tool)
    if (hooked === undefined) wrapped.set(tool, (hooked = withHooks(tool, hooks, onProblem)))
    return hooked
  }
  return {
    tools: () => source.tools().map(wrap),
    lookup: (name) => {
      const tool = source.lookup(name)
      return tool && wrap(tool)
    },
  }
}
