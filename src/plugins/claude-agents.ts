import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { agentPaths, readManifestQuietly } from "./claude-components.ts"
import { claudeConfigDir } from "./places.ts"
import { anvilName } from "../tool-framework/claude-tools.ts"
import { AGENT_FIELDS, parseContinuedFrontMatter } from "../skills/front-matter-continued.ts"
import type { CustomAgent } from "../tool-framework/subagent.ts"

/**
 * Claude Code's subagents — a plugin's `agents/*.md`, the project's and the user's `.claude/agents/*.md` — each with front matter
 * (`name`, default the file's name; `description`, required; `tools`, Claude's
 * names as a comma list or a YAML list, default all; `disallowedTools`, the same, taken away from them; `model` is not used) and
 * the agent's prompt as its body. The task tool runs them beside `explore`.
 */
export interface PluginAgents {
  readonly agents: ReadonlyArray<CustomAgent>
  /** Files that could not be read as an agent, with why. */
  readonly problems: ReadonlyArray<string>
}

/** The `.md` files of a folder (sub-folders included), or the path itself when it is one. */
const markdownFiles = (path: string): Array<string> => {
  if (path.endsWith(".md")) return [path]
  try {
    return readdirSync(path, { recursive: true }).map(String).filter((f) => f.endsWith(".md")).sort().map((f) => join(path, f))
  } catch {
    return []
  }
}

/** The plugin's agents: the files and folders its manifest's `agents` names, else `agents/`. */
export const readPluginAgents = (dir: string, manifest: Record<string, unknown> | undefined = readManifestQuietly(dir)): PluginAgents =>
  readAgentFiles(agentPaths(dir, manifest).flatMap(markdownFiles), "plugin")

/**
 * Claude Code's own subagent folders, read as it reads them: the project's `.claude/agents/` (unless the program's
 * settingSources leave the project out) and the user's (`~/.claude/agents/`, or under `$CLAUDE_CONFIG_DIR`).
 */
export const localAgents = (root: string, env: Readonly<Record<string, string | undefined>>, withProject: boolean): { project: PluginAgents; user: PluginAgents } => {
  const user = claudeConfigDir(env)
  return {
    project: readAgentFiles(withProject ? markdownFiles(join(root, ".claude", "agents")) : [], "project"),
    user: readAgentFiles(user ? markdownFiles(join(user, "agents")) : [], "user"),
  }
}

/** Lists of agents joined in order; the first of a name wins (a later one is hidden, as Claude Code hides it). */
export const firstOfEachName = (...lists: ReadonlyArray<ReadonlyArray<CustomAgent>>): Array<CustomAgent> => {
  const out = new Map<string, CustomAgent>()
  for (const agent of lists.flat()) if (!out.has(agent.name)) out.set(agent.name, agent)
  return [...out.values()]
}

/** A `tools`-like field: Claude's names as a comma list or a YAML list, in anvil's names (a rule's `(…)` dropped); undefined when absent. */
const toolList = (field: unknown): Array<string> | undefined => {
  const listed = typeof field === "string" ? field.split(",") : Array.isArray(field) ? field.map(String) : undefined
  return listed?.map((t) => anvilName(t.trim().replace(/\(.*\)$/, ""))).filter((t) => t !== "")
}

/**
 * A description with Claude Code's written newlines made real: its /agents wizard writes one long plain YAML line with
 * `\n` between the paragraphs and examples (YAML keeps them as a backslash and an n), and Claude Code turns each
 * `\n` into a line break when it reads the file.
 */
const unescapedNewlines = (text: string): string => text.replace(/\\n/g, "\n")

/** `from`: a plugin agent's `hooks` are not run (Claude Code ignores them in plugin agents); a project's need trust. */
const readAgentFiles = (files: ReadonlyArray<string>, from: "project" | "user" | "plugin"): PluginAgents => {
  const agents: Array<CustomAgent> = []
  const problems: Array<string> = []
  for (const path of files) {
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (e) {
      problems.push(`${path}: cannot be read (${(e as Error).message})`)
      continue
    }
    const parsed = parseContinuedFrontMatter(text, AGENT_FIELDS)
    if (!parsed.ok) {
      problems.push(`${path}${parsed.line ? `:${parsed.line}` : ""}: ${parsed.reason}`)
      continue
    }
    const { fields, body } = parsed
    const name = typeof fields.name === "string" && fields.name.trim() !== "" ? fields.name.trim() : basename(path, ".md")
    if (typeof fields.description !== "string" || fields.description.trim() === "" || body.trim() === "") {
      problems.push(`${path}: an agent needs a description in its front matter and a prompt after it`)
      continue
    }
    const tools = toolList(fields.tools)
    const disallowed = toolList(fields.disallowedTools)
    // Front matter Claude Code would drop loads, and is reported so that its author can mend it (a one-line value
    // with ': ' inside, which Claude Code reads too, is not).
    if (parsed.continued?.length) for (const note of parsed.notes) problems.push(`${path}: loaded; ${note}`)
    if (fields.hooks !== undefined && from === "plugin") problems.push(`${path}: its front matter's hooks are not run: Claude Code ignores hooks in a plugin's agents (the plugin's hooks/hooks.json runs them)`)
    const hooks = fields.hooks !== undefined && from !== "plugin" ? { hooks: { value: fields.hooks, file: path, project: from === "project" } } : {}
    agents.push({ name, description: unescapedNewlines(fields.description).trim(), prompt: body.trim(), ...(tools && tools.length > 0 ? { tools } : {}), ...(disallowed && disallowed.length > 0 ? { disallowedTools: disallowed } : {}), ...hooks })
  }
  return { agents, problems }
}
