import template from "./system-prompt.md" with { type: "text" }
import type { Profile } from "./profiles.ts"

export interface PromptFacts {
  readonly root: string
  readonly cwd: string
  readonly platform: string
  /** ISO date (YYYY-MM-DD). */
  readonly date: string
  /** The project's own instructions (AGENTS.md, CLAUDE.md), if any. */
  readonly projectInstructions?: string | undefined
  /** The files they came from, root-relative (the heading names them). */
  readonly projectInstructionFiles?: ReadonlyArray<string> | undefined
  /** How many characters of the instructions each of those files gave (for a report of the context's parts). */
  readonly projectInstructionChars?: ReadonlyArray<number> | undefined
  /** The skills the skill tool can load, so the model knows they exist without listing them first. */
  readonly skills?: ReadonlyArray<{ readonly name: string; readonly description: string }>
}

/** The system prompt: the template filled with the environment and the profile, plus the project's AGENTS.md / CLAUDE.md. */
export const systemPrompt = (profile: Profile, facts: PromptFacts, extra = ""): string => {
  const filled = template
    .replaceAll("{{root}}", facts.root)
    // Started at the root, "here" is the root: nothing to say.
    .replaceAll("{{here}}", facts.cwd === "." ? "" : ` The user started anvil in ${facts.cwd} (root-relative): "here" means that folder; name it in paths (\`${facts.cwd}/file.ts\`).`)
    .replaceAll("{{platform}}", facts.platform)
    .replaceAll("{{date}}", facts.date)
    .replaceAll("{{profile}}", profile.instructions)
    .trim()
  const project = facts.projectInstructions?.trim()
  const skills =
    facts.skills && facts.skills.length > 0
      ? `# Skills\nWhen a task matches one, load it with the skill tool and follow it.\n${facts.skills.map((k) => `- ${k.name}: ${k.description}`).join("\n")}`
      : ""
  return [filled, skills, project ? `# Project instructions (${(facts.projectInstructionFiles ?? ["AGENTS.md"]).join(", ")})\n${project}` : "", extra.trim()]
    .filter((s) => s !== "")
    .join("\n\n")
}
