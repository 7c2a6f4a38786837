import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { anvilName } from "../tool-framework/claude-tools.ts"
import { parseFrontMatter } from "../skills/front-matter.ts"
import type { CustomAgent } from "../tool-framework/subagent.ts"

/**
 * A Claude Code plugin's subagents: `agents/*.md`, each with front matter
 * (`name`, default the file's name; `description`, required; `tools`, Claude's
 * names as a comma list or a YAML list, default all; `model` is not used) and
 * the agent's prompt as its body. The task tool runs them beside `explore`.
 */
export interface PluginAgents {
  readonly agents: ReadonlyArray<CustomAgent>
  /** Files that could not be read as an agent, with why. */
  readonly problems: ReadonlyArray<string>
}

export const readPluginAgents = (dir: string): PluginAgents => {
  const folder = join(dir, "agents")
  let files: Array<string>
  try {
    files = readdirSync(folder, { recursive: true }).map(String).filter((f) => f.endsWith(".md")).sort()
  } catch {
    return { agents: [], problems: [] }
  }
  const agents: Array<CustomAgent> = []
  const problems: Array<string> = []
  for (const file of files) {
    const path = join(folder, file)
    const parsed = parseFrontMatter(readFileSync(path, "utf8"))
    if (!parsed.ok) {
      problems.push(`${path}${parsed.line ? `:${parsed.line}` : ""}: ${parsed.reason}`)
      continue
    }
    const { fields, body } = parsed
    const name = typeof fields.name === "string" && fields.name.trim() !== "" ? fields.name.trim() : basename(file, ".md")
    if (typeof fields.description !== "string" || fields.description.trim() === "" || body.trim() === "") {
      problems.push(`${path}: an agent needs a description in its front matter and a prompt after it`)
      continue
    }
    const listed = typeof fields.tools === "string" ? fields.tools.split(",") : Array.isArray(fields.tools) ? fields.tools : undefined
    const tools = listed?.map((t) => anvilName(t.trim().replace(/\(.*\)$/, ""))).filter((t) => t !== "")
    agents.push({ name, description: fields.description.trim(), prompt: body.trim(), ...(tools && tools.length > 0 ? { tools } : {}) })
  }
  return { agents, problems }
}
