import { Predicate } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import type { Hooks, SessionEvent, ToolAfterResult, ToolBeforeResult } from "./api.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import { runCommandHook } from "./command-hook.ts"
import { breakerOpened, hookBreaker } from "./hook-breaker.ts"
import { readPluginAgents } from "./claude-agents.ts"
import { readCommandPaths } from "./claude-commands.ts"
import type { ClaudePlugin, PluginMcpServer } from "./claude-plugin-shape.ts"
import { commandPaths, ensureDataDir, hookSources, mcpServerEntries, pluginDataDir, pluginVars, settingsHookSources, skillDirs, skillNames } from "./claude-components.ts"
import { allSettingsHooksDisabled, projectHookSettings, userHookSettings } from "./places.ts"
import { compileMatcher } from "./hook-matcher.ts"
import { readHookSpecs, type CommandSpec } from "./claude-hook-specs.ts"
import { parseSkillDocument } from "../skills/skill-document.ts"
import { readJsonPart } from "./json-part.ts"
import { answerProblemsLine } from "./claude-answer-check.ts"
import { jsonDecision } from "./claude-hook-output.ts"
// The one table of Claude Code's tool names and input fields (also the Agent SDK host's edge); it imports nothing.
import { claudeName, toAnvilInput } from "../tool-framework/claude-tools.ts"
import { hookToolInput, hookToolResponse } from "./claude-hook-input.ts"

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

  // The session the calls belong to, as its start tells it (`anvil tool` has none: "cli", as its calls are filed).
  let session: { readonly id: string; readonly transcript?: string } = { id: "cli" }
  const sessionFields = () => ({ session_id: session.id, ...(session.transcript !== undefined ? { transcript_path: session.transcript } : {}), cwd: input.root })
  const opened = (event: SessionEvent) => {
    session = { id: event.sessionId, ...(event.transcriptPath !== undefined ? { transcript: event.transcriptPath } : {}) }
  }
  // The data folder is made before a hook runs: the command may name it through its environment alone.
  const hookEnv = { CLAUDE_PLUGIN_ROOT: input.dir, CLAUDE_PROJECT_DIR: input.root, ...(data !== undefined ? { CLAUDE_PLUGIN_DATA: data } : {}) }
  /** Runs one command with the call as Claude Code sends it on stdin. */
  const run = (
    spec: CommandSpec,
    event: "PreToolUse" | "PostToolUse",
    call: { readonly tool: string; readonly params: Readonly<Record<string, unknown>>; readonly callId: string },
    extra: Record<string, unknown> = {},
  ) => {
    const payload = {
      ...sessionFields(),
      hook_event_name: event,
      tool_name: claudeName(call.tool),
      tool_input: hookToolInput(call.tool, call.params, input.root),
      tool_use_id: call.callId,
      ...extra,
    }
    ensureDataDir(data)
    return runCommandHook({
      command: spec.command,
      cwd: input.root,
      env: { ...input.env, ...hookEnv },
      stdin: JSON.stringify(payload),
      timeoutMs: spec.timeoutMs,
      ...(input.confine ? { confine: input.confine } : {}),
    }).then((out) => {
      if (!out.timedOut) breaker.record(spec, false)
      return out
    })
  }
  // A command that keeps timing out is skipped without waiting for a while, as its time-out skips it (hook-breaker.ts).
  const breaker = hookBreaker<CommandSpec>()
  const selects = (spec: CommandSpec, tool: string) => (spec.selects(claudeName(tool)) || spec.selects(tool)) && breaker.allows(spec)
  // A command that fails is a non-blocking error (as in Claude Code): reported, and the event's other commands
  // still run — a later one may be the hook that blocks the call.
  const failed = (event: string, spec: CommandSpec, out: { exitCode: number; stderr: string; timedOut: boolean }) => {
    input.onProblem?.(
      `plugin '${input.name}': ${event} hook '${spec.command}' ${out.exitCode === 124 ? "timed out" : out.exitCode === 127 ? "could not run" : `exited with ${out.exitCode}`}` +
        ` (${out.stderr.trim().slice(0, 500) || "no stderr"}); it was skipped and the other hooks ran`,
    )
    if (out.timedOut && breaker.record(spec, true)) input.onProblem?.(`plugin '${input.name}': ${event} hook '${spec.command}' ${breakerOpened()}`)
  }

  // An answer anvil cannot wholly use is acted on as far as it can be, and what is left out reported: a hook that
  // misspelt its refusal must not pass for one that allowed the call.
  const read = (event: string, spec: CommandSpec, stdout: string) => {
    const decision = jsonDecision(stdout, event)
    if (decision?.problems) input.onProblem?.(`plugin '${input.name}': ${event} hook '${spec.command}' ${answerProblemsLine(decision.problems)}`)
    return decision
  }

  const hooks: { -readonly [K in keyof Hooks]: Hooks[K] } = {}
  if (specs.PreToolUse.length > 0) {
    hooks["tool.before"] = async (event): Promise<ToolBeforeResult> => {
      // `updatedInput` (Claude Code's fields) replaces the input; later hooks see the new one.
      let params: Readonly<Record<string, unknown>> | undefined
      // The strictest word on the permission: "ask" over "allow" (a "deny" returns at once).
      let permission: { decision: "allow" | "ask"; reason?: string } | undefined
      for (const spec of specs.PreToolUse) {
        if (!selects(spec, event.tool)) continue
        const out = await run(spec, "PreToolUse", { tool: event.tool, params: params ?? event.params, callId: event.callId })
        if (out.exitCode === 2) return { deny: out.stderr.trim() || `PreToolUse hook '${spec.command}' blocked the call` }
        if (out.exitCode !== 0) {
          failed("PreToolUse", spec, out)
          continue
        }
        const decision = read("PreToolUse", spec, out.stdout)
        // `continue: false` outranks every other answer: the turn ends, and the call with it.
        if (decision?.stop !== undefined) return { stop: decision.stop || `PreToolUse hook '${spec.command}' said continue: false` }
        if (decision?.block) return { deny: decision.reason ?? `PreToolUse hook '${spec.command}' blocked the call` }
        if (decision?.updatedInput) params = toAnvilInput(claudeName(event.tool), decision.updatedInput)
        if (decision?.permission && permission?.decision !== "ask") {
          permission = { decision: decision.permission, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) }
        }
      }
      if (!params && !permission) return undefined
      return {
        ...(params ? { params: { ...params } } : {}),
        ...(permission ? { permission: permission.decision, ...(permission.reason !== undefined ? { reason: permission.reason } : {}) } : {}),
      }
    }
  }
  if (specs.PostToolUse.length > 0) {
    hooks["tool.after"] = async (event): Promise<ToolAfterResult> => {
      const notes: Array<string> = []
      let stop: string | undefined
      for (const spec of specs.PostToolUse) {
        if (stop !== undefined) break
        if (!selects(spec, event.tool)) continue
        const out = await run(spec, "PostToolUse", event, { tool_response: hookToolResponse(event.tool, event.params, event.result, input.root) })
        if (out.exitCode === 2) notes.push(out.stderr.trim() || `PostToolUse hook '${spec.command}' objected to the result`)
        else if (out.exitCode !== 0) failed("PostToolUse", spec, out)
        else {
          const decision = read("PostToolUse", spec, out.stdout)
          // `continue: false`: the result stands and the turn ends after it; the later hooks do not run.
          if (decision?.stop !== undefined) stop = decision.stop || `PostToolUse hook '${spec.command}' said continue: false`
          else {
            if (decision?.block && decision.reason) notes.push(decision.reason)
            if (decision?.context) notes.push(decision.context)
          }
        }
      }
      const text = notes.length > 0 ? { text: `${event.result.text}\n\nPostToolUse hook feedback:\n${notes.join("\n")}` } : {}
      return stop !== undefined || notes.length > 0 ? { ...text, ...(stop !== undefined ? { stop } : {}) } : undefined
    }
  }

  if (specs.SessionStart.length > 0) {
    // SessionStart: what the commands print (plain text, or JSON's hookSpecificOutput.additionalContext) joins the
    // system prompt of the session, as Claude Code adds it to the context. The matcher is the start's source.
    hooks["prompt.system"] = async (event): Promise<string | undefined> => {
      opened(event)
      const context: Array<string> = []
      for (const spec of specs.SessionStart) {
        if (!spec.selects("startup")) continue
        ensureDataDir(data)
        const out = await runCommandHook({
          command: spec.command,
          cwd: input.root,
          env: { ...input.env, ...hookEnv },
          stdin: JSON.stringify({ ...sessionFields(), hook_event_name: "SessionStart", source: "startup" }),
          timeoutMs: spec.timeoutMs,
          ...(input.confine ? { confine: input.confine } : {}),
        })
        if (out.exitCode !== 0) {
          failed("SessionStart", spec, out)
          continue
        }
        const text = read("SessionStart", spec, out.stdout)?.context ?? (out.stdout.trim().startsWith("{") ? "" : out.stdout.trim())
        if (text !== "") context.push(text)
      }
      return context.length > 0 ? context.join("\n\n") : undefined
    }
  }

  // The tool hooks learn the session from its start (SessionStart's hook learns it earlier, from the system prompt's).
  if (specs.PreToolUse.length > 0 || specs.PostToolUse.length > 0) hooks["session.start"] = opened

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
