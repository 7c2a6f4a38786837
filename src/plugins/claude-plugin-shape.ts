import type { CustomAgent } from "../tool-framework/subagent.ts"
import type { Hooks } from "./api.ts"
import type { SlashCommand } from "./claude-commands.ts"

/** What reading a Claude Code plugin folder (claude-plugin.ts) gives the plugin host. */

/** An MCP server a Claude Code plugin declares, as written (command/args/env or url). */
export interface PluginMcpServer {
  readonly plugin: string
  readonly name: string
  readonly config: Readonly<Record<string, unknown>>
}

export interface ClaudePlugin {
  readonly description?: string
  /** The folders its skills are read from (`skills/`, the manifest's `skills`), each a folder of skills or one skill. */
  readonly skillDirs: ReadonlyArray<string>
  readonly skills: ReadonlyArray<string>
  readonly hooks: Hooks
  /**
   * The time limit of each hook: its commands' own timeouts added up (the
   * host's general hook limit would cut a command allowed a longer `timeout`,
   * and the call would go on as if the hook had not blocked it).
   */
  readonly hookTimeoutsMs: Partial<Record<keyof Hooks, number>>
  /** The hook names anvil runs, e.g. "PreToolUse(Bash)". */
  readonly hookLabels: ReadonlyArray<string>
  readonly mcpServers: ReadonlyArray<PluginMcpServer>
  /** The `.md` files under `commands/`: slash commands (prompt templates). */
  readonly commands: ReadonlyArray<SlashCommand>
  /** `agents/*.md`: subagents the task tool runs. */
  readonly agents: ReadonlyArray<CustomAgent>
  /** Agent files that could not be read, with why. */
  readonly agentProblems: ReadonlyArray<string>
  /** Parts anvil does not run (other hook events, prompt hooks). */
  readonly unsupported: ReadonlyArray<string>
  /** Parts that can never run as written (a matcher that is not a valid regular expression, a manifest path not found), each with why. */
  readonly warnings: ReadonlyArray<string>
}
