import type { ConfigShape } from "../config/config.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { PermissionLevel } from "./permission-level.ts"
import { entryKeyFor, ruleMatches, type ToolRules } from "./rules.ts"
import { commandParts } from "./command-parts.ts"
import type { Subjects } from "./subjects.ts"
import { writtenPattern } from "./root-twins.ts"

/**
 * Which configured rule refuses a call, and in which file, so that a refusal
 * names the step that helps: --yes and --allow never override a deny rule,
 * only changing the rule does.
 */
export interface DenyingRule {
  /** The rule as written: `"write": "deny"` or `"bash": {"rm *": "deny"}`. */
  readonly rule: string
  /** Where it is set: the file (and whose it is), or the options anvil was started with. */
  readonly where: string
}

const layerName = (layer: ConfigShape["layers"][number]): string =>
  layer.file === undefined
    ? "the settings anvil was started with (--disallowedTools or the host's options)"
    : `${layer.file} (${layer.source === "project file" ? "this project's settings" : "your own settings"})`

/** The deny rule (or, with `level`, the ask rule) that decides a call `rules` refuse, found among the files' `permission` sections. */
export const denyingRule = (
  config: ConfigShape,
  toolName: string,
  rules: ToolRules,
  subjects: Subjects | undefined,
  level: "deny" | "ask" = "deny",
): DenyingRule | undefined => {
  const values = subjects ? (subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values) : []
  const found = rules.patterns.find((r) => r.level === level && values.some((v) => ruleMatches(subjects!, r, v)))
  // A rule written under another tool's entry (edit's, for write) is named where it is written.
  const entry = found ? (found.from ?? toolName) : (rules.levelFrom ?? toolName)
  return denyRuleSource(config, entry, found?.pattern, level)
}

/** The deny (or `level`) rule `pattern` of a tool's entry (undefined: the tool's own level) as written, and where it is set. */
export const denyRuleSource = (config: ConfigShape, toolName: string, pattern: string | undefined, level: "deny" | "ask" = "deny"): DenyingRule | undefined => {
  const permission = config.get("permission", {} as Record<string, unknown>)
  const key = entryKeyFor(permission, toolName)
  if (key === undefined) return undefined
  const has = (entry: unknown, p = pattern): boolean =>
    p === undefined ? entry === level || (isRecord(entry) && entry["*"] === level) : isRecord(entry) && entry[p] === level
  // The last layer that has the rule is the one in force (later layers win).
  let layer = [...config.layers].reverse().find((l) => isRecord(l.data.permission) && has(l.data.permission[key]))
  // A rule anvil rewrote (a root-relative twin of an absolute rule, a `~/` spelt out; root-twins.ts) is named as written.
  const written = pattern === undefined ? undefined : writtenPattern(pattern)
  if (layer === undefined && written !== undefined) {
    layer = [...config.layers].reverse().find((l) => isRecord(l.data.permission) && has(l.data.permission[key], written))
    if (layer) pattern = written
  }
  // A level written as `{"*": "deny", …}` is shown so, for the user to find it.
  const shown = pattern ?? (isRecord((layer?.data.permission as Record<string, unknown> | undefined)?.[key] ?? permission[key]) ? "*" : undefined)
  const rule = shown === undefined ? `${JSON.stringify(key)}: "${level}"` : `${JSON.stringify(key)}: {${JSON.stringify(shown)}: "${level}"}`
  return { rule, where: layer ? layerName(layer) : "the settings in force" }
}

/** The refusal text for a call a deny rule refuses. */
export const denyReason = (toolName: string, what: string, source: DenyingRule): string =>
  `The '${toolName}' call${what} is denied by the rule ${source.rule} in "permission" of ${source.where}. ` +
  `--yes and --allow do not override a deny rule; to let such calls run, change or remove that rule.`

/** Whether the rules deny every call of a tool (its level is deny and no pattern lets a call through). */
export const deniesEveryCall = (rules: ToolRules | undefined, toolDefault: PermissionLevel): boolean =>
  (rules?.level ?? toolDefault) === "deny" && (rules?.patterns ?? []).every((p) => p.level === "deny")
