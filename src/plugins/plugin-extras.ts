import type { ConfigShape } from "../config/config.ts"
import type { PluginSkillFolder } from "../skills/skill-catalog.ts"
import { makeTrust } from "../trust/trust.ts"
import { readClaudePlugin, type PluginMcpServer } from "./claude-plugin.ts"
import { readManifestQuietly, skillDirs } from "./claude-components.ts"
import { discoverPlugins, type DiscoveredPlugin } from "./discovery.ts"
import { pluginCommandFolder, type SlashCommand } from "./claude-commands.ts"
import { admission, pluginSettings, trustOf } from "./plugin-host.ts"

/**
 * What Claude Code plugin folders bring besides hooks — skills and MCP
 * servers — for the skill catalogue and the MCP client. Found without running
 * any plugin code, so reading them is cheap and safe: only folders that would
 * load count (not disabled, not broken, and trusted when they came with the
 * project, or assumed trusted for this run).
 */

export interface ExtrasInput {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly config: ConfigShape
  /** `--trust-plugins`: the project's plugins count as trusted for this run. */
  readonly trustProject?: boolean
}

/**
 * The Claude Code plugin folders that would load, by the rule loading itself applies (plugin-host's
 * admission): enabled, not broken, the first of their name, and trusted (or assumed trusted) when they
 * came with the project. Every plugin takes its name in order, as when they load.
 */
export const activeClaudePlugins = (input: ExtrasInput): ReadonlyArray<DiscoveredPlugin> => {
  const settings = pluginSettings(input.config)
  const found = discoverPlugins({ root: input.root, env: input.env, paths: settings.paths, layers: input.config.layers })
  if (!found.plugins.some((p) => p.kind === "claude")) return []
  const trust = makeTrust({ root: input.root, env: input.env, ...(input.trustProject ? { assume: ["plugin"] } : {}) })
  const seen = new Set<string>()
  // Settings hooks bring no extras: the `skills`, `commands` and `agents` beside the settings are read as the project's or yours.
  return found.plugins.filter((p) => !("refused" in admission(p, seen, settings.disabled, (q) => trustOf(trust, q))) && p.kind === "claude" && p.settingsHooks === undefined)
}

/**
 * The slash commands the active Claude Code plugin folders bring (`commands/`), found without loading any
 * plugin: for a host that lists commands before a session opens (the Agent SDK's `initialize`).
 */
export const pluginCommands = (input: ExtrasInput): ReadonlyArray<SlashCommand> => commandsOf(activeClaudePlugins(input))

/** The slash commands of plugin folders already found active (`activeClaudePlugins`). */
export const commandsOf = (plugins: ReadonlyArray<DiscoveredPlugin>): ReadonlyArray<SlashCommand> =>
  plugins.flatMap((p) => pluginCommandFolder(p.path, p.name, p.manifest))

/** The skill folders of the active Claude Code plugin folders, in plugin order. */
export const pluginSkillFolders = (input: ExtrasInput): ReadonlyArray<PluginSkillFolder> => skillFoldersOf(activeClaudePlugins(input))

/**
 * The skill folders of plugin folders already found active (`activeClaudePlugins`): `skills/` and the manifest's
 * `skills`, or the plugin's own folder when it is the one skill (named by its front matter, as in Claude Code).
 */
export const skillFoldersOf = (plugins: ReadonlyArray<DiscoveredPlugin>): ReadonlyArray<PluginSkillFolder> =>
  plugins.flatMap((p) => skillDirs(p.path, p.manifest ?? readManifestQuietly(p.path)).map((dir) => ({ dir, source: p.source, plugin: p.name, ...(dir === p.path ? { pluginRoot: true } : {}) })))

/**
 * The MCP servers the active Claude Code plugin folders declare (`.mcp.json`
 * or the manifest's `mcpServers`), `${CLAUDE_PLUGIN_ROOT}` expanded, for the
 * MCP client to start like its own configured servers. A folder whose files
 * cannot be read is left out (`anvil plugins` shows why).
 */
export const pluginMcpServers = (input: ExtrasInput): ReadonlyArray<PluginMcpServer & { readonly source: "project" | "user" }> =>
  activeClaudePlugins(input).flatMap((p) => {
    try {
      return readClaudePlugin({ name: p.name, dir: p.path, root: input.root, env: input.env, ...(p.manifest ? { manifest: p.manifest } : {}) }).mcpServers.map((s) => ({ ...s, source: p.source }))
    } catch {
      return []
    }
  })
