import { strictest, type PatternRule, type ToolRules } from "./permission-level.ts"

/**
 * The tools besides `edit` that change what a file holds. A deny or ask rule written under `edit`
 * (`"edit": {"*.lock": "deny"}`) holds for them too, as Claude Code's Edit rules cover every tool that
 * edits files: otherwise the model, refused an edit, could write the same file whole. `edit`'s allow
 * rules stay its own (a rule that loosens covers only the tool it names).
 */
export const EDIT_COVERED_TOOLS: ReadonlySet<string> = new Set(["write", "multiedit", "patch"])

/** A file-changing tool's own rules with `edit`'s deny and ask rules added (each marked as written under `edit`). */
export const withEditRules = (own: ToolRules | undefined, edit: ToolRules | undefined): ToolRules | undefined => {
  if (!edit) return own
  const narrowing: Array<PatternRule> = edit.patterns.filter((p) => p.level !== "allow").map((p) => ({ ...p, from: "edit" }))
  const editLevel = edit.level !== undefined && edit.level !== "allow" ? edit.level : undefined
  if (narrowing.length === 0 && editLevel === undefined) return own
  const editWins = editLevel !== undefined && (own?.level === undefined || strictest([own.level, editLevel]) !== own.level)
  const level = editWins ? editLevel : own?.level
  return {
    ...(level !== undefined ? { level } : {}),
    ...(editWins ? { levelFrom: "edit" } : own?.levelFrom !== undefined ? { levelFrom: own.levelFrom } : {}),
    patterns: [...(own?.patterns ?? []), ...narrowing],
  }
}
