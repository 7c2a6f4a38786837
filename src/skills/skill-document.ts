import type { FrontMatterValue } from "./front-matter.ts"
import { parseContinuedFrontMatter, SKILL_FIELDS } from "./front-matter-continued.ts"

/**
 * A SKILL.md read and checked against the Agent Skills format: front matter
 * with `name` and `description`, then Markdown instructions.
 */
export interface SkillDocument {
  /** The name a person types after `/` and the skill tool loads: its folder's, as Claude Code names it (see parseSkillDocument). */
  readonly name: string
  /** The front matter's `name` when it is not the skill's name: only a label, as in Claude Code's listings. */
  readonly displayName?: string
  readonly description: string
  /** The instructions: the body after the front matter, without leading blank lines and trailing whitespace. */
  readonly content: string
  /** Every front-matter field (license, compatibility, metadata, allowed-tools, …). */
  readonly fields: Readonly<Record<string, FrontMatterValue>>
  /** Problems that do not stop the skill from loading (a name that differs from its folder, …). */
  readonly warnings: ReadonlyArray<string>
}

export type SkillDocumentResult = { readonly ok: true; readonly skill: SkillDocument } | { readonly ok: false; readonly reason: string }

/** A skill name: 1–64 lowercase letters, digits and single hyphens, not starting or ending with a hyphen. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const MAX_NAME_LENGTH = 64
export const MAX_DESCRIPTION_LENGTH = 1024

/** Why `name` is not a valid skill name, or undefined when it is. */
export const skillNameProblem = (name: string): string | undefined => {
  if (name === "") return "the name is empty"
  if (name.length > MAX_NAME_LENGTH) return `the name is longer than ${MAX_NAME_LENGTH} characters`
  if (!SKILL_NAME.test(name)) return `'${name}' is not a valid skill name (lowercase letters, digits and single hyphens, not starting or ending with a hyphen)`
  return undefined
}

/** The first line of the instructions (a heading without its `#`s), as Claude Code describes a skill that gives no description. */
export const firstLineOf = (body: string): string | undefined => {
  const line = body.split("\n").map((l) => l.trim()).find((l) => l !== "")
  if (line === undefined) return undefined
  const text = /^#+\s+(.+)$/.exec(line)?.[1] ?? line
  return text.length > 100 ? `${text.slice(0, 97)}...` : text
}

/**
 * Where a skill's name comes from (Claude Code's "How a skill gets its command name"): a skill folder's own name
 * (`.claude/skills/deploy/SKILL.md` is `/deploy` whatever its front matter says), or, for the one SKILL.md at a plugin's
 * root, which has no skill folder, the front matter's `name` with the folder's as a fallback.
 */
export type SkillNameSource = "folder" | "front-matter"

/**
 * Reads a SKILL.md as Claude Code does, saying where it departs from the Agent Skills format. `folder` is the name of
 * the folder holding it; undefined when there is no such folder. Front matter that is missing or that YAML cannot read
 * leaves the fields empty (with a warning giving the reason and line). The name is the folder's (a front-matter `name`
 * other than it is only a display label, with a warning), or the front matter's when `from` says so or the folder's is
 * no skill name; a missing `description` is the instructions' first line. Never throws.
 */
export const parseSkillDocument = (text: string, folder: string | undefined, from: SkillNameSource = "folder"): SkillDocumentResult => {
  const parsed = parseContinuedFrontMatter(text, SKILL_FIELDS)
  const warnings: Array<string> = []
  let fields: Readonly<Record<string, FrontMatterValue>> = {}
  let body: string
  if (parsed.ok) {
    ;({ fields, body } = parsed)
    warnings.push(...parsed.notes)
  } else {
    // Claude Code loads the skill without its front matter; so does anvil, saying why the front matter was not read.
    const close = /^\uFEFF?---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)
    if (parsed.line === 1 || close === null) {
      if (folder === undefined) return { ok: false, reason: `invalid front matter${parsed.line !== undefined ? ` (line ${parsed.line})` : ""}: ${parsed.reason}` }
      // Without a closing line the whole file is the instructions, as Claude Code reads it.
      body = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")
      warnings.push(parsed.line === 1 ? "there is no front matter (a first line '---', which the Agent Skills format asks for): the skill is named after its folder and described by its first line" : `${parsed.reason}: the whole file is read as the instructions`)
    } else {
      if (folder === undefined) return { ok: false, reason: `invalid front matter (line ${parsed.line}): ${parsed.reason}` }
      body = text.slice(close[0].length).replace(/\r\n?/g, "\n")
      warnings.push(`the front matter was not read (line ${parsed.line}: ${parsed.reason}); the skill loads without it, as in Claude Code`)
    }
  }
  const given = fields.name
  const nameProblem = typeof given === "string" ? skillNameProblem(given) : given === undefined ? undefined : "'name' must be a string"
  let name: string
  let displayName: string | undefined
  if (from === "folder" && folder !== undefined && skillNameProblem(folder) === undefined && nameProblem === undefined) {
    // Claude Code names the skill after its folder; the front matter's other name only labels it.
    name = folder
    if (typeof given === "string" && given !== folder) {
      displayName = given
      warnings.push(`the front matter's name '${given}' differs from its folder '${folder}': the skill is '${folder}' (run as /${folder}, loaded by that name), as Claude Code names it; '${given}' is only its display name`)
    }
  } else if (typeof given === "string" && nameProblem === undefined) {
    name = given
    if (from === "folder" && folder !== undefined && folder !== given) warnings.push(`the folder's name '${folder}' is no skill name (${skillNameProblem(folder)}): the skill is named by its front matter, '${given}'`)
  } else {
    if (folder === undefined) return { ok: false, reason: given === undefined ? "the front matter has no 'name'" : nameProblem! }
    const folderProblem = skillNameProblem(folder)
    if (folderProblem) return { ok: false, reason: given === undefined ? `the front matter has no 'name', and the folder's name is no skill name: ${folderProblem}` : nameProblem! }
    name = folder
    if (given !== undefined) warnings.push(`${nameProblem}; the skill is named after its folder, '${folder}', as Claude Code names it`)
  }
  const content = body.replace(/^(?:[ \t]*\n)+/, "").trimEnd()
  let description = typeof fields.description === "string" ? fields.description.trim() : ""
  if (description === "") {
    const first = firstLineOf(content)
    if (first === undefined) return { ok: false, reason: "the front matter has no 'description', and there are no instructions to take one from" }
    const why = fields.description === undefined ? "the front matter has no 'description'" : typeof fields.description === "string" ? "'description' is empty" : "'description' is not a text"
    if (parsed.ok) warnings.push(`${why}: it is the first line of the instructions, as in Claude Code`)
    description = first
  }
  if (description.length > MAX_DESCRIPTION_LENGTH) warnings.push(`the description is longer than ${MAX_DESCRIPTION_LENGTH} characters`)
  if (content === "") warnings.push("there are no instructions after the front matter")
  return { ok: true, skill: { name, ...(displayName !== undefined ? { displayName } : {}), description, content, fields, warnings } }
}
