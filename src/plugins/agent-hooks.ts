import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import type { CustomAgent } from "../tool-framework/subagent.ts"
import { frontMatterHookEntries, frontMatterHooksTrusted } from "./front-matter-hooks.ts"
import { sourceWithHooks } from "./hooked-source.ts"
import { hookRunner, withHooks } from "./hook-runner.ts"

/** The limit of a hook without its own (each command entry has its own: its commands' timeouts added up). */
const FALLBACK_TIMEOUT_MS = 60_000

/**
 * A subagent's tools with its front matter's hooks around them, in force while that subagent runs and for its calls
 * only, as Claude Code scopes an agent's hooks (the session's own hooks stay around them too). The tools its sources
 * bring while it runs (an MCP server's) are wrapped too: a guard on `mcp__.*` must see those calls. A project's agent
 * runs them only once trusted, in the command sandbox; otherwise the person is told why and the tools are as they were.
 */
export const withAgentHooks = (
  given: { readonly tools: ReadonlyArray<Tool>; readonly sources: ReadonlyArray<ToolSource> },
  agent: CustomAgent | undefined,
  input: {
    readonly root: string
    readonly env: Readonly<Record<string, string | undefined>>
    readonly session: { readonly id: string; readonly transcript?: string }
    readonly onProblem: (message: string) => void
    readonly confine?: CommandConfinement
    readonly trustProject: boolean
  },
): { readonly tools: ReadonlyArray<Tool>; readonly sources: ReadonlyArray<ToolSource> } => {
  const hooks = agent?.hooks
  if (!agent || !hooks) return given
  if (hooks.project) {
    const trusted = frontMatterHooksTrusted({ kind: "agent", name: agent.name, path: hooks.file, file: hooks.file, declared: hooks.value, root: input.root, env: input.env, trustProject: input.trustProject })
    if (trusted !== true) {
      input.onProblem(trusted)
      return given
    }
  }
  const entries = frontMatterHookEntries({
    kind: "agent",
    name: agent.name,
    file: hooks.file,
    hooks: hooks.value,
    root: input.root,
    env: input.env,
    session: input.session,
    onProblem: input.onProblem,
    ...(hooks.project && input.confine ? { confine: input.confine } : {}),
  })
  if (entries.length === 0) return given
  const runner = hookRunner(entries, { timeoutMs: FALLBACK_TIMEOUT_MS, onProblem: input.onProblem })
  return {
    tools: given.tools.map((t) => withHooks(t, runner, input.onProblem)),
    sources: given.sources.map((s) => sourceWithHooks(s, runner, input.onProblem)),
  }
}
