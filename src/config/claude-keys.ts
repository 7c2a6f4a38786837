/**
 * Keys of Claude Code's settings.json that people carry into anvil.json. Their nearest anvil key is no help
 * (`hooks` is not `tools`, Claude's `permissions` lists are not anvil's `permission` map): each says where the
 * setting goes instead.
 */
const CLAUDE_SETTINGS_KEYS: Readonly<Record<string, string>> = {
  hooks: "Claude Code's hooks are read from .claude/settings.json (the project's, once trusted) and ~/.claude/settings.json, not from anvil.json; anvil's own hooks come from plugins (see Writing a plugin in the README)",
  permissions: `Claude Code's permissions lists are not read by anvil; write anvil's "permission": a tool name → "allow" | "ask" | "deny", or patterns → level ("permission": {"bash": {"git status*": "allow"}})`,
  enabledPlugins: "Claude Code's enabledPlugins is read from its own settings.json files (~/.claude/settings.json, .claude/settings.json), not from anvil.json; anvil's plugins are turned off with plugins.disabled",
  disableAllHooks: "Claude Code's disableAllHooks is read from its own settings.json files, not from anvil.json; plugins.disabled turns off one plugin's hooks (claude-settings: the project's .claude/settings.json hooks)",
  env: "anvil.json sets no environment: export the variables in the shell that starts anvil (commands run by bash get them, less those that look secret; see sandbox.allow_env)",
}

/** The hint for a top-level key of Claude Code's settings, or undefined. */
export const claudeSettingsHint = (path: ReadonlyArray<string>): string | undefined =>
  path.length === 1 && Object.hasOwn(CLAUDE_SETTINGS_KEYS, path[0]!) ? CLAUDE_SETTINGS_KEYS[path[0]!] : undefined
