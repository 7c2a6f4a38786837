import type { ConfigShape } from "../config/config.ts"
import type { PathFilter } from "../workspace/path-filter.ts"
import { denyingRule, denyRuleSource, type DenyingRule } from "./deny-source.ts"
import { foldersOf, pathGlob, rootGlob } from "./path-patterns.ts"
import { levelFor, toolRules, type ToolRules } from "./rules.ts"
import { withRootTwins } from "./root-twins.ts"
import type { PermissionLevel } from "./permission-level.ts"

/** A rule that hides paths from a search: a deny rule, or (for grep) a `read` ask rule. */
export interface HidingRule extends DenyingRule {
  readonly level: "deny" | "ask"
}

/** The paths a search tool leaves out, and the rule that refuses a search rooted in one. */
export interface HiddenPaths extends PathFilter {
  /** The rule a search rooted at `path` (a file, or a `dir` with all it holds) meets, or undefined. */
  readonly hidingRule: (path: string, dir: boolean) => HidingRule | undefined
  /**
   * The `read` ask rules that may leave files of the folder `path` out (a search made with `asked`), as written and
   * where: its answer names them.
   */
  readonly askRulesIn: (path: string) => ReadonlyArray<DenyingRule>
}

/** The rules of one tool and the levels that hide what they match. */
interface RuleSet {
  readonly tool: string
  readonly rules: ToolRules
  readonly hiding: ReadonlySet<PermissionLevel>
}

/** A deny pattern on paths and the folder it names when it ends in `/**` or `/` (`secret/**`: `secret`). */
const folderStem = (pattern: string): string | undefined => {
  const p = rootGlob(pattern)
  const stem = p.endsWith("/**") ? p.slice(0, -3) : undefined
  return stem === undefined || stem === "" || stem === "**" ? undefined : stem
}

/** Whether a path matcher matches the path or a folder it lies in. */
const inOrUnder = (glob: string, path: string) => {
  const m = pathGlob(glob)
  return m.test(path) || foldersOf(path).some((f) => m.test(f))
}

/** Whether a path pattern matches the folder `path` or something it holds (`.`: the root, which holds everything). */
const reachesInto = (pattern: string, path: string): boolean => {
  if (pattern === "*") return true
  const m = pathGlob(pattern)
  return path === "." ? m.startsMatch("") : m.test(path) || m.startsMatch(`${path}/`)
}

/** The hiding pattern of `set` that hides the folder `path` with all it holds (`null`: the tool's level does), with its level. */
const folderDenial = ({ rules, hiding }: RuleSet, path: string): { pattern: string | null; level: "deny" | "ask" } | undefined => {
  // The tool's level hides a folder none of the other patterns names or reaches into (`{"*": "deny", "src/**": "allow"}`
  // leaves nothing to show in lib/).
  if (rules.level !== undefined && rules.level !== "allow" && hiding.has(rules.level)) {
    if (!rules.patterns.some((r) => !hiding.has(r.level) && reachesInto(r.pattern, path))) return { pattern: null, level: rules.level }
  }
  let found: { pattern: string; level: "deny" | "ask" } | undefined
  for (const r of rules.patterns) {
    if (r.level === "allow" || !hiding.has(r.level) || r.pattern === "*") continue
    // The folder a `/**` or `/` pattern names is judged by the pattern itself (`secret/**` matches `secret/`): its
    // stem alone would lose the anchoring (`secret` without a slash matches at any depth, `a/secret` too).
    const names = folderStem(r.pattern) !== undefined && pathGlob(r.pattern).test(`${path}/`)
    if ((names || inOrUnder(r.pattern, path)) && found?.level !== "deny") found = { pattern: r.pattern, level: r.level }
  }
  return found
}

const GLOB_META = /[[\]{}\\!]/g

/**
 * A deny pattern as a ripgrep exclusion for a search of the folder `base`, when rg reads it as leaving out
 * no more than the rule denies: anchored to the searched folder unless it matches at any depth (it starts with
 * `**` and a slash), and only when the pattern starts inside that folder. rg's `*`, `?` and `**` read as anvil's (a `**` inside a
 * name is narrower to rg), other glob characters are escaped; a rule denying a folder denies what it holds, as
 * rg's exclusion of a folder does.
 */
const rgExclude = (pattern: string, base: string): string | undefined => {
  if (pattern.trim() === "*") return undefined
  const p = rootGlob(pattern)
  if (p === "" || p === "**/" || p.startsWith("/")) return undefined
  let rel: string
  if (base === "." || p.startsWith("**/")) rel = p
  else if (p.startsWith(`${base}/`)) rel = p.slice(base.length + 1)
  else return undefined
  const escaped = rel.replace(GLOB_META, "\\$&")
  return `!${escaped.startsWith("**/") ? escaped : `/${escaped}`}`
}

/**
 * What grep, glob and list leave out for a tool (`toolName`): what the `read` rules deny — a file that read may
 * not open is not searched, listed or counted by the others either (else a search would show what read refuses)
 * — and what the tool's own path rules deny. With `asked` (grep, which shows what files hold) also what read
 * asks about: a search must not show what the user wants to be asked about first. Undefined when nothing is hidden.
 */
export const hiddenPaths = (config: ConfigShape, toolName: string, asked = false, root?: string): HiddenPaths | undefined => {
  const permission = withRootTwins(config.get("permission", {} as Record<string, unknown>), root, config.env.HOME)
  const sets = [...new Set(["read", toolName])]
    .map((tool): RuleSet | undefined => {
      const rules = toolRules(permission, tool)
      const hiding = new Set<PermissionLevel>(asked && tool === "read" ? ["deny", "ask"] : ["deny"])
      return rules && (hiding.has(rules.level ?? "allow") || rules.patterns.some((p) => hiding.has(p.level))) ? { tool, rules, hiding } : undefined
    })
    .filter((s) => s !== undefined)
  if (sets.length === 0) return undefined
  const fileLevel = (set: RuleSet, path: string) => {
    const level = levelFor(set.rules, "allow", { kind: "path", values: [path] })
    return level !== "allow" && set.hiding.has(level) ? level : undefined
  }
  const read = sets.find((s) => s.tool === "read" && s.hiding.has("ask"))
  const askRulesIn = (path: string): ReadonlyArray<DenyingRule> => {
    if (!read) return []
    const patterns = read.rules.patterns.filter((r) => r.level === "ask" && (reachesInto(r.pattern, path) || inOrUnder(r.pattern, path)))
    return [...(read.rules.level === "ask" ? [undefined] : []), ...patterns.map((r) => r.pattern)].flatMap((pattern) => denyRuleSource(config, "read", pattern, "ask") ?? [])
  }
  return {
    // Names are judged composed (see rules.ts subjectMatches): the folder tests match the glob directly.
    hides: (path, dir) => sets.some((set) => (dir ? folderDenial(set, path.normalize("NFC")) !== undefined : fileLevel(set, path) !== undefined)),
    rgExcludes: (base) =>
      sets.flatMap(({ rules, hiding }) => rules.patterns.flatMap((r) => (r.level !== "allow" && hiding.has(r.level) ? [rgExclude(r.pattern, base)].filter((g) => g !== undefined) : []))),
    hidingRule: (given, dir) => {
      const path = given.normalize("NFC")
      for (const set of sets) {
        if (dir) {
          const found = folderDenial(set, path)
          const rule = found && denyRuleSource(config, set.tool, found.pattern ?? undefined, found.level)
          if (found && rule) return { ...rule, level: found.level }
          continue
        }
        const level = fileLevel(set, path)
        const rule = level && denyingRule(config, set.tool, set.rules, { kind: "path", values: [path] }, level)
        if (level && rule) return { ...rule, level }
      }
      return undefined
    },
    askRulesIn,
  }
}
