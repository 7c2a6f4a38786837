import type { ConfigShape } from "../config/config.ts"
import type { PathFilter } from "../workspace/path-filter.ts"
import { deniesEveryCall, denyingRule, denyRuleSource, type DenyingRule } from "./deny-source.ts"
import { foldersOf, levelFor, pathGlob, toolRules, type ToolRules } from "./rules.ts"

/** The paths a search tool leaves out, and the rule that refuses a search rooted in one. */
export interface HiddenPaths extends PathFilter {
  /** The deny rule a search rooted at `path` (a file, or a `dir` with all it holds) meets, or undefined. */
  readonly hidingRule: (path: string, dir: boolean) => DenyingRule | undefined
}

/** A deny pattern on paths and the folder it names when it ends in `/**` or `/` (`secret/**`: `secret`). */
const folderStem = (pattern: string): string | undefined => {
  const p = pattern.trim().replace(/^\.\//, "")
  const stem = p.endsWith("/**") ? p.slice(0, -3) : p.endsWith("/") ? p.slice(0, -1) : undefined
  return stem === undefined || stem === "" || stem === "**" ? undefined : stem
}

/** Whether a path matcher matches the path or a folder it lies in. */
const inOrUnder = (glob: string, path: string) => {
  const m = pathGlob(glob)
  return m.test(path) || foldersOf(path).some((f) => m.test(f))
}

/** The deny pattern of `rules` that hides the folder `path` with all it holds (`null`: the tool's level does). */
const folderDenial = (rules: ToolRules, path: string): string | null | undefined => {
  if (deniesEveryCall(rules, "allow")) return null
  for (const r of rules.patterns) {
    if (r.level !== "deny" || r.pattern === "*") continue
    // The folder a `/**` or `/` pattern names is judged by the pattern itself (`secret/**` matches `secret/`): its
    // stem alone would lose the anchoring (`secret` without a slash matches at any depth, `a/secret` too).
    const names = folderStem(r.pattern) !== undefined && pathGlob(r.pattern).test(`${path}/`)
    if (names || inOrUnder(r.pattern, path)) return r.pattern
  }
  return undefined
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
  let p = pattern.trim().replace(/^\.\//, "")
  if (p === "" || p === "*" || p.startsWith("/")) return undefined
  if (!p.includes("/")) p = `**/${p}`
  if (p.endsWith("/")) p += "**"
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
 * — and what the tool's own path rules deny. Undefined when no rule denies a path.
 */
export const hiddenPaths = (config: ConfigShape, toolName: string): HiddenPaths | undefined => {
  const permission = config.get("permission", {} as Record<string, unknown>)
  const sets = [...new Set(["read", toolName])]
    .map((tool) => ({ tool, rules: toolRules(permission, tool) }))
    .filter((s): s is { tool: string; rules: ToolRules } => s.rules !== undefined && (s.rules.level === "deny" || s.rules.patterns.some((p) => p.level === "deny")))
  if (sets.length === 0) return undefined
  const fileDenied = (rules: ToolRules, path: string) => levelFor(rules, "allow", { kind: "path", values: [path] }) === "deny"
  return {
    hides: (path, dir) => sets.some(({ rules }) => (dir ? folderDenial(rules, path) !== undefined : fileDenied(rules, path))),
    rgExcludes: (base) =>
      sets.flatMap(({ rules }) => rules.patterns.flatMap((r) => (r.level === "deny" ? [rgExclude(r.pattern, base)].filter((g) => g !== undefined) : []))),
    hidingRule: (path, dir) => {
      for (const { tool, rules } of sets) {
        if (dir) {
          const pattern = folderDenial(rules, path)
          if (pattern !== undefined) return denyRuleSource(config, tool, pattern ?? undefined)
        } else if (fileDenied(rules, path)) return denyingRule(config, tool, rules, { kind: "path", values: [path] })
      }
      return undefined
    },
  }
}
