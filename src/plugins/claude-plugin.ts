import { Predicate } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import { readPluginAgents } from "./claude-agents.ts"
import { readCommandPaths } from "./claude-commands.ts"
import type { ClaudePlugin, PluginMcpServer } from "./claude-plugin-shape.ts"
import { commandPaths, ensureDataDir, hookSources, mcpServerEntries, pluginDataDir, pluginVars, settingsHookSources, skillDirs, skillNames } from "./claude-components.ts"
import { allSettingsHooksDisabled, projectHookSettings, userHookSettings } from "./places.ts"
import { compileMatcher } from "./hook-matcher.ts"
import { readHookSpecs, type CommandSpec } from "./claude-hook-specs.ts"
import { commandHooks } from "./claude-command-hooks.ts"
import { parseSkillDocument } from "../skills/skill-document.ts"
import { readJsonPart } from "./json-part.ts"
// The one table of Claude Code's tool names and input fields (also the Agent SDK host's edge); it imports nothing.
import { claudeName } from "../tool-framework/claude-tools.ts"

/**
 * A Claude Code plugin folder (`.claude-plugin/plugin.json`) as an anvil
 * plugin: its `skills/` folder holds skills, its `hooks/hooks.json` (or the
 * manifest's `hooks`) PreToolUse / PostToolUse command hooks become
 * `tool.before` / `tool.after` hooks, and its `.mcp.json` (or the manifest's
 * `mcpServers`) servers are handed to the MCP client; SessionStart command
 * hooks add what they print to the system prompt. Other hook events (Stop,
 * UserPromptSubmit, …) are listed as unsupported rather than dropped silently.
 */

export type { ClaudePlugin, PluginMcpServer } from "./claude-plugin-shape.ts"


/** Does a Claude Code matcher select this tool (by its Claude Code name or anvil's)? An invalid matcher selects none. */
export const matcherSelects = (matcher: string, tool: string): boolean => {
  const compiled = compileMatcher(matcher)
  return "selects" in compiled && (compiled.selects(claudeName(tool)) || compiled.selects(tool))
}

/** Settings hooks, as a plugin without a manifest of its own. */
const SETTINGS_MANIFEST: Readonly<Record<"project" | "user", Readonly<Record<string, unknown>>>> = {
  project: { description: "the hooks of .claude/settings.json and .claude/settings.local.json" },
  user: { description: "the hooks of your Claude Code settings.json" },
}

/** A plugin folder's manifest; without it there is no plugin: that one file's problem (with its line and column) is the plugin's error. */
const readManifest = (dir: string): Record<string, unknown> => {
  const file = join(dir, ".claude-plugin", "plugin.json")
  const part = readJsonPart(file)
  if ("problem" in part) throw new Error(part.problem)
  if (!Predicate.isObject(part.json)) throw new Error(`${file}: the top level must be an object`)
  return part.json
}

/**
 * Reads the folder. Throws naming the file only when the manifest is broken; a broken hooks or MCP file, or a
 * wrong field in one, is a warning and costs only its own part.
 */
export const readClaudePlugin = (input: {
  readonly name: string
  readonly dir: string
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Confines the command hooks (those of a plugin that came with the repository run in the command sandbox). */
  readonly confine?: CommandConfinement
  /** Told of a command hook that failed (could not start, timed out, exited 1): the others of the event still run. */
  readonly onProblem?: (message: string) => void
  /** The manifest its marketplace entry gives a folder without plugin.json (`"strict": false`). */
  readonly manifest?: Readonly<Record<string, unknown>>
  /** `dir` is the project's `.claude/` or your `~/.claude/`: only the hooks of its settings files are read (its skills, commands and agents are read as the project's or yours). */
  readonly settingsHooks?: "project" | "user"
}): ClaudePlugin => {
  const manifest = input.settingsHooks ? SETTINGS_MANIFEST[input.settingsHooks] : (input.manifest ?? readManifest(input.dir))
  const data = pluginDataDir(input.env, input.name)
  const expand = pluginVars(input.dir, data)

  const warnings: Array<string> = []
  const own = input.settingsHooks === undefined
  const dirs = own ? skillDirs(input.dir, manifest, warnings) : []
  // The one SKILL.md at the plugin's root is named by its front matter, as the skill catalogue names it.
  const rootName = (file: string) => {
    try {
      const doc = parseSkillDocument(readFileSync(file, "utf8"), basename(input.dir), "front-matter")
      return doc.ok ? doc.skill.name : basename(input.dir)
    } catch {
      return basename(input.dir)
    }
  }
  const skills = skillNames(dirs, (d) => readdirSync(d), { dir: input.dir, name: rootName })

  const unsupported: Array<string> = []
  // Slash commands are prompt templates; agents are subagents of the task tool.
  const commands = own ? readCommandPaths(commandPaths(input.dir, manifest, warnings), input.name) : []
  const agents = own ? readPluginAgents(input.dir, manifest) : { agents: [], problems: [] }
  // Hooks: hooks/hooks.json, then the manifest's `hooks` (paths or objects), merged; a broken one is a warning.
  const settingsFiles = input.settingsHooks === "user" ? userHookSettings(input.root, input.env) : projectHookSettings(input.root)
  const sources = own ? hookSources(input.dir, manifest, warnings) : settingsHookSources(settingsFiles, warnings, allSettingsHooksDisabled(input.root, input.env, input.settingsHooks ?? "project"))
  const specs = readHookSpecs(sources, expand, warnings, unsupported)

  // The data folder is made before a hook runs: the command may name it through its environment alone.
  const hooks = commandHooks({
    owner: `plugin '${input.name}'`,
    root: input.root,
    env: input.env,
    hookEnv: { CLAUDE_PLUGIN_ROOT: input.dir, CLAUDE_PROJECT_DIR: input.root, ...(data !== undefined ? { CLAUDE_PLUGIN_DATA: data } : {}) },
    specs,
    beforeRun: () => ensureDataDir(data),
    ...(input.confine ? { confine: input.confine } : {}),
    ...(input.onProblem ? { onProblem: input.onProblem } : {}),
  })

  // MCP servers: .mcp.json, then the manifest's `mcpServers` (paths or objects), merged.
  const mcpServers: Array<PluginMcpServer> = own ? mcpServerEntries(input.dir, manifest, warnings, expand).map(([name, config]) => ({ plugin: input.name, name, config })) : []
  // Parts anvil does not run are named, never dropped silently (the official *-lsp plugins are only lspServers).
  if (own && (manifest.lspServers !== undefined || existsSync(join(input.dir, ".lsp.json")))) unsupported.push("LSP servers (lspServers, .lsp.json; configure them under lsp in anvil.json)")
  if (own && (manifest.outputStyles !== undefined || existsSync(join(input.dir, "output-styles")))) unsupported.push("output styles")

  const hookLabels = [
    ...specs.PreToolUse.map((s) => `PreToolUse(${s.matcher || "*"})`),
    ...specs.PostToolUse.map((s) => `PostToolUse(${s.matcher || "*"})`),
    ...specs.SessionStart.map((s) => `SessionStart(${s.matcher || "*"})`),
  ]
  // Each command keeps its own timeout; the hook around them may take all of them, and a moment to start them.
  const total = (list: ReadonlyArray<CommandSpec>) => list.reduce((sum, spec) => sum + spec.timeoutMs, 1000)
  return {
    ...(typeof manifest.description === "string" ? { description: manifest.description } : {}),
    skillDirs: skills.length > 0 ? dirs : [],
    skills: skills.sort(),
    hooks,
    hookTimeoutsMs: { "tool.before": total(specs.PreToolUse), "tool.after": total(specs.PostToolUse), "prompt.system": total(specs.SessionStart) },
    hookLabels,
    mcpServers,
    commands,
    agents: agents.agents,
    agentProblems: agents.problems,
    unsupported: [...new Set(unsupported)],
    warnings,
  }
}
