/**
 * Claude Code's print-mode flags as anvil takes them (the ones the Agent SDK's query() passes, and those of scripts
 * written for `claude -p`): which take a value, and which anvil refuses because acting as if it had honoured them
 * would mislead the program (a usage error naming the SDK option and what to do instead); print-flags.ts acts on the
 * others. A flag in none of these lists is unknown: it is reported, never fatal, so a newer SDK does not stop anvil.
 */

/** Flags that take a value (the next word, or `--flag=value`): their values are never read as prompt words. */
export const VALUED = new Set([
  "--output-format", "--input-format", "--model", "--max-turns", "--permission-mode", "--permission-prompt-tool",
  "--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools", "--system-prompt", "--append-system-prompt",
  "--resume", "-r", "--session-id", "--mcp-config", "--setting-sources", "--add-dir", "--max-thinking-tokens",
  "--fallback-model", "--settings", "--agents", "--plugin-dir", "--max-budget-usd", "--resume-session-at", "--json-schema",
  "--betas", "--agent", "--debug-file", "--tools", "--effort", "--workload", "--thinking", "--name",
  "--system-prompt-file", "--append-system-prompt-file", "--thinking-display", "--task-budget", "--plugin-dir-no-mcp",
  "--permission-prompts", "--channels", "--project-config-root", "--resume-drops-turn", "--initialize-fields", "--managed-settings",
])

/** Flags with no value. */
export const SWITCHES = new Set([
  "--verbose", "-p", "--print", "--continue", "-c", "--fork-session", "--include-partial-messages", "--strict-mcp-config",
  "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", "--debug", "--replay-user-messages",
  "--include-hook-events", "--no-session-persistence", "--bare", "--disable-slash-commands", "--session-mirror",
  "--await-initialize", "--managed-settings-in-initialize",
])

/**
 * Refused: the SDK option each stands for, and why anvil cannot honour it. (`--permission-prompt-tool` is refused
 * for any value but `stdio`, and `--initialize-fields` when it names `settings`: see print-flags.ts.)
 */
export const REFUSED: ReadonlyMap<string, string> = new Map([
  ["--effort", "effort: anvil sends no effort level to the model; leave it out (thinking or maxThinkingTokens turn on extended thinking)"],
  ["--task-budget", "taskBudget: anvil sends no API task budget; bound the run with maxTurns or maxBudgetUsd"],
  ["--agent", "agent: anvil's main thread does not run as a named agent; give that agent's prompt as systemPrompt and its tools as tools"],
  ["--betas", "betas: anvil sends no Anthropic beta headers from the command line; set providers.anthropic.headers {\"anthropic-beta\": …} in anvil.json"],
  ["--resume-session-at", "resumeSessionAt: anvil resumes a session whole; resume it without resumeSessionAt (forkSession keeps the original)"],
  ["--resume-drops-turn", "resumeDropsTurn: anvil resumes a session whole; resume it without resumeDropsTurn"],
  ["--session-id", "sessionId: anvil names its sessions itself; read the id from the init message's session_id and resume with it"],
  ["--permission-prompts", "permissionPrompts: calls that would ask go to canUseTool, or are denied without one"],
  ["--channels", "channels: anvil has no channels"],
  ["--project-config-root", "projectConfigRoot: anvil reads the project's settings from the project of the working folder (cwd)"],
  ["--managed-settings", "managedSettings: anvil has no managed policy settings, so their restrictions would not apply; put deny rules in ~/.config/anvil/anvil.json or pass disallowedTools"],
  ["--managed-settings-in-initialize", "managedSettings: anvil has no managed policy settings, so their restrictions would not apply; put deny rules in ~/.config/anvil/anvil.json or pass disallowedTools"],
  ["--include-hook-events", "includeHookEvents: anvil sends no hook_started / hook_response messages; leave it out"],
  ["--session-mirror", "sessionMirror: anvil keeps its session in its own file only"],
  ["--plugin-dir-no-mcp", "plugins with skipMcpDiscovery: anvil loads a plugin folder's MCP servers with it; pass the folder without skipMcpDiscovery"],
  ["--replay-user-messages", "anvil does not echo user messages back on stdout"],
  ["--bare", "anvil has no bare mode"],
  ["--disable-slash-commands", "anvil runs a prompt's /command; leave the flag out"],
  ["--workload", "anvil has no workload setting"],
  ["--name", "anvil names its sessions itself"],
])
