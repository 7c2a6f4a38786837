import { strictest, type PatternRule, type PermissionLevel, type ToolRules } from "./permission-level.ts"
import { EDIT_COVERED_TOOLS, withEditRules } from "./edit-covers.ts"
import { commandParts } from "./command-parts.ts"
import { foldersOf, pathGlob, subjectMatches } from "./path-patterns.ts"
import { entryKeyFor, sameToolKey } from "./tool-keys.ts"
import { matchedForms, type Subjects } from "./subjects.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * Permission rules in anvil.json:
 *
 * ```jsonc
 * "permission": {
 *   "read": "allow",                                        // a whole tool
 *   "bash": { "*": "ask", "git status*": "allow", "npm test": "allow", "rm *": "deny" },
 *   "edit": { "src/**": "allow", "*.lock": "deny" },       // file tools: paths (root-relative globs)
 *   "fetch": { "docs.python.org": "allow", "*.internal": "deny" }   // fetch: hosts
 * }
 * ```
 *
 * A string is the tool's level; in an object `"*"` is the tool's level and the
 * other keys are patterns on the call's subject: the command for bash, the
 * file paths for file tools, the URL's host for fetch, and whatever a tool's
 * own `permissionSubjects` names (the skill's name for skill, e.g.
 * `"skill": { "*": "allow", "deploy-*": "ask" }`). Among the patterns that
 * match, the most restrictive wins (deny > ask > allow); with none matching,
 * the tool's level applies (`"*"`, else the tool's own default). A compound
 * command (`a && b`, `a | b`, `$(b)`) is judged part by part, and a call with
 * several paths path by path: the strictest part decides, so `git status*`
 * never approves `git status; rm -rf /`.
 */
export type { PatternRule, ToolRules }

/** Whether a rule's pattern matches one value of a call (or where that value leads). */
export const matchesValue = (subjects: Subjects, pattern: string, value: string): boolean =>
  matchedForms(subjects, value).some((form) => subjectMatches(subjects.kind, pattern, form))

/**
 * Whether a pattern rule matches one value of a call. A deny or ask rule on paths also matches what lies in a
 * folder it matches, as an ignore rule leaves out a folder's contents: `"secret": "deny"` refuses `secret/a.txt`
 * (and the search tools never show it), `"secret": "ask"` asks before it. Allow rules match only what they name.
 */
export const ruleMatches = (subjects: Subjects, rule: PatternRule, value: string): boolean =>
  matchesValue(subjects, rule.pattern, value) ||
  (rule.level !== "allow" &&
    subjects.kind === "path" &&
    rule.pattern !== "*" &&
    matchedForms(subjects, value).some((form) => foldersOf(form.normalize("NFC")).some((folder) => pathGlob(rule.pattern).test(folder))))

export { strictest, entryKeyFor }

const isLevel = (v: unknown): v is PermissionLevel => v === "allow" || v === "ask" || v === "deny"

const entryFor = (permission: Record<string, unknown>, toolName: string): unknown => {
  const key = entryKeyFor(permission, toolName)
  return key === undefined ? undefined : permission[key]
}

/** The rules configured for one tool (`permission.<name>` or a matching `permission.<prefix>*`), or undefined when there are none. */
export const toolRules = (permission: unknown, toolName: string): ToolRules | undefined => {
  if (!isRecord(permission)) return undefined
  const own = entryRules(entryFor(permission, toolName))
  const editKey = EDIT_COVERED_TOOLS.has(toolName) ? sameToolKey(permission, "edit") : undefined
  return editKey !== undefined ? withEditRules(own, entryRules(permission[editKey])) : own
}

/** The rules one `permission` entry holds: a level string, or an object of patterns (`"*"` the level). */
const entryRules = (entry: unknown): ToolRules | undefined => {
  if (isLevel(entry)) return { level: entry, patterns: [] }
  if (!isRecord(entry)) return undefined
  const patterns: Array<PatternRule> = []
  let level: PermissionLevel | undefined
  for (const [pattern, value] of Object.entries(entry)) {
    if (!isLevel(value)) continue
    if (pattern === "*") level = value
    else patterns.push({ pattern, level: value })
  }
  return { ...(level ? { level } : {}), patterns }
}

/**
 * The level for one call: per subject value, the strictest matching pattern
 * or else the tool level or default; then the strictest over the values.
 */
export const levelFor = (rules: ToolRules | undefined, fallback: PermissionLevel, subjects: Subjects | undefined): PermissionLevel => {
  const base = rules?.level ?? fallback
  if (!rules || rules.patterns.length === 0) return base
  const values = subjects ? (subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values) : []
  const judge = (value: string | undefined): PermissionLevel => {
    const matching = rules.patterns.filter((r) => (value === undefined ? r.pattern === "*" : ruleMatches(subjects!, r, value)))
    return matching.length > 0 ? strictest(matching.map((r) => r.level)) : base
  }
  return values.length === 0 ? judge(undefined) : strictest(values.map(judge))
}

