import type { ConfigShape } from "../config/config.ts"
import type { IgnoredSetting } from "../config/ignored.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { PermissionLevel } from "./permission-level.ts"
import { entryKeyFor, levelFor, toolRules } from "./rules.ts"
import type { Subjects } from "./subjects.ts"

/** The permission section with the project's rules that were left out for want of trust put back. */
const withIgnoredRules = (permission: Readonly<Record<string, unknown>>, ignored: ReadonlyArray<IgnoredSetting>) => {
  const out: Record<string, unknown> = { ...permission }
  for (const s of ignored) {
    const [, tool, pattern] = s.path
    if (tool === undefined) continue
    const own = out[tool]
    const entry = isRecord(own) ? own : typeof own === "string" ? { "*": own } : {}
    out[tool] = pattern === undefined ? (isRecord(own) ? { ...entry, "*": s.value } : s.value) : { ...entry, [pattern]: s.value }
  }
  return out
}

/** A project rule that would have allowed a call, left out for want of trust. */
export interface UntrustedAllow {
  /** The rules as the notices show them: `permission.write: "allow"`. */
  readonly rule: string
  /** The command that applies them: `anvil config trust permission.write`. */
  readonly next_step: string
  /** The sentences a refusal ends with. */
  readonly note: string
}

/**
 * Why a call that now needs approval would have been allowed by the project's own rules, had the user
 * trusted them (trust/project-settings.ts leaves loosening project rules out until then): the refusal
 * names those rules and the command that applies them, so a script written when they applied without
 * trust learns what changed. Undefined when no untrusted rule would have allowed the call.
 */
export const untrustedAllow = (config: ConfigShape, toolName: string, fallback: PermissionLevel, subjects: Subjects | undefined): UntrustedAllow | undefined => {
  const ignored = (config.ignored ?? []).filter((s) => s.path[0] === "permission")
  if (ignored.length === 0) return undefined
  const permission = withIgnoredRules(config.get("permission", {} as Record<string, unknown>), ignored)
  if (levelFor(toolRules(permission, toolName), fallback, subjects) !== "allow") return undefined
  const ruleKey = entryKeyFor(permission, toolName) ?? toolName
  const rules = ignored.filter((s) => s.path[1] === ruleKey)
  if (rules.length === 0) return undefined
  const one = rules.length === 1
  const changed = rules.every((s) => s.trust === "changed")
  const rule = rules.map((s) => `${s.key}: ${JSON.stringify(s.value)}`).join(", ")
  const next_step = `anvil config trust permission.${ruleKey}`
  const note =
    `The project's anvil.json (${rules[0]!.file}) allows this call with ${rule}, ` +
    `but ${one ? "that rule" : "those rules"} ${changed ? `changed since you trusted ${one ? "it" : "them"}` : `${one ? "is" : "are"} not trusted`}, so ${one ? "it does" : "they do"} not apply. ` +
    `To apply ${one ? "it" : "them"} in this project, review ${one ? "it" : "them"} and run '${next_step}' (or put ${one ? "it" : "them"} in your own ~/.config/anvil/anvil.json).`
  return { rule, next_step, note }
}
