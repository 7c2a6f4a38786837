import { parseFrontMatter, type FrontMatterValue } from "./front-matter.ts"

/**
 * A SKILL.md read and checked against the Agent Skills format: front matter
 * with `name` and `description`, then Markdown instructions.
 */
export interface SkillDocument {
  readonly name: string
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

/**
 * Reads a SKILL.md. `folder` is the name of the folder holding it (the name
 * the skill should have); undefined when there is no such folder. Never throws.
 */
export const parseSkillDocument = (text: string, folder: string | undefined): SkillDocumentResult => {
  const parsed = parseFrontMatter(text)
  if (!parsed.ok) return { ok: false, reason: `invalid front matter${parsed.line !== undefined ? ` (line ${parsed.line})` : ""}: ${parsed.reason}` }
  const { fields } = parsed
  const name = fields.name
  if (name === undefined) return { ok: false, reason: "the front matter has no 'name'" }
  if (typeof name !== "string") return { ok: false, reason: "'name' must be a string" }
  const nameProblem = skillNameProblem(name)
  if (nameProblem) return { ok: false, reason: nameProblem }
  const description = fields.description
  if (description === undefined) return { ok: false, reason: "the front matter has no 'description'" }
  if (typeof description !== "string") return { ok: false, reason: "'description' must be a string" }
  if (description.trim() === "") return { ok: false, reason: "'description' is empty" }
  const warnings: Array<string> = [...parsed.notes]
  if (folder !== undefined && folder !== name) warnings.push(`the name '${name}' differs from its folder '${folder}'`)
  if (description.length > MAX_DESCRIPTION_LENGTH) warnings.push(`the description is longer than ${MAX_DESCRIPTION_LENGTH} characters`)
  const content = parsed.body.replace(/^(?:[ \t]*\n)+/, "").trimEnd()
  if (content === "") warnings.push("there are no instructions after the front matter")
  return { ok: true, skill: { name, description: description.trim(), content, fields, warnings } }
}
