import { join } from "node:path"
import type { ConfigShape } from "../config/config.ts"
import type { ReadMasks, RuleMask } from "../sandbox/settings.ts"
import { denyRuleSource } from "./deny-source.ts"
import { wholeRule } from "./read-asks.ts"
import { maskWalker, type VisitStore } from "./mask-walk.ts"
import { maskWalkStore } from "./mask-walk-store.ts"
import { intoRoot, withRootTwins } from "./root-twins.ts"
import { outsideWalks } from "./outside-walks.ts"
import { rootGlob } from "./path-patterns.ts"
import { toolRules, type PatternRule } from "./rules.ts"

const WILD = /[*?[\]{}]/

/**
 * The places `read` deny and ask rules name, for the command sandbox to hide from commands too: bash could `cat`
 * what read refuses, and a command cannot stop to ask, so an ask rule hides as a deny rule does. A path or folder
 * written literally (`./secret.txt`, `config/prod.env`, `secret/`, `secret/**`, an absolute path) is that place; a
 * pattern (`*.pem`, `**\/secret/`, a bare name such as `.env`, which the rule means at any depth) is looked for by a
 * walk of the project as each command starts (mask-walk.ts; kept in the file `keepIn` names for the next anvil
 * process, mask-walk-store.ts). The tool-wide level names no place but every file, which no set of places covers:
 * `"read": "deny"` comes as `everything`, and the sandbox runs no command (rule-masks.ts); `"read": "ask"` (or
 * `"*": "ask"`) comes as `asked`, beside the places the deny rules name: only a command a person approved runs, and
 * it may read what is only asked about. Each place
 * comes with its rule as written and where it is set, for the command's answer to name when the command fails on
 * it. Undefined when no rule narrows.
 */
const levelOf = (r: PatternRule): "deny" | "ask" => (r.level === "ask" ? "ask" : "deny")

export const readRuleMasks = (config: ConfigShape, root: string): ReadMasks | undefined => {
  const permission = config.get("permission", {} as Record<string, unknown>)
  const rules = toolRules(withRootTwins(permission, root, config.env.HOME), "read")
  const level = rules?.level
  if (level === "deny") {
    const everything = wholeRule(config, "deny")
    return () => ({ places: [], stopped: false, everything })
  }
  // Asked about as a whole, a command a person approved may read what is asked about: only deny rules hide places.
  const asked = level === "ask" ? wholeRule(config, "ask") : undefined
  const narrowing = (rules?.patterns ?? []).filter((r) => (asked === undefined ? r.level !== "allow" : r.level === "deny") && r.pattern.trim() !== "*")
  if (narrowing.length === 0) return asked === undefined ? undefined : () => ({ places: [], stopped: false, asked })
  const shown = new Map<PatternRule, string>()
  const show = (r: PatternRule) => {
    let text = shown.get(r)
    if (text === undefined) {
      const source = denyRuleSource(config, "read", r.pattern, r.level === "ask" ? "ask" : "deny")
      text = source ? `${source.rule} in "permission" of ${source.where}` : `"read": {${JSON.stringify(r.pattern)}: "${r.level}"}`
      shown.set(r, text)
    }
    return text
  }
  const literal: Array<{ readonly path: string; readonly rule: PatternRule }> = []
  const patterns: Array<PatternRule> = []
  const outside: Array<PatternRule> = []
  for (const r of narrowing) {
    const written = r.pattern.trim()
    // An absolute rule inside the project has a root-relative twin (root-twins.ts); one outside names its place, or
    // with a wildcard is looked for from the folder it starts at (outside-walks.ts).
    if (written.startsWith("/")) {
      if (!WILD.test(written)) literal.push({ path: written.replace(/\/+$/, "") || "/", rule: r })
      // One that leads into the project has its root-relative twin walked with the project.
      else if (intoRoot(written, root) === undefined) outside.push(r)
      continue
    }
    let p = rootGlob(written)
    if (p.endsWith("/**")) p = p.slice(0, -3)
    if (p === "" || p === "." || p.startsWith("~") || p.split("/").includes("..")) continue
    if (WILD.test(p)) patterns.push(r)
    else literal.push({ path: join(root, p), rule: r })
  }
  const walk = patterns.length > 0 ? maskWalker(root, patterns) : undefined
  const walkOutside = outside.length > 0 ? outsideWalks(outside) : undefined
  let store: { readonly file: string; readonly store: VisitStore } | undefined
  return (keepIn) => {
    const places: Array<RuleMask> = literal.map((l) => ({ path: l.path, rule: show(l.rule), level: levelOf(l.rule) }))
    if (keepIn !== undefined && store?.file !== keepIn) store = { file: keepIn, store: maskWalkStore(keepIn, root, patterns) }
    const walked = walk?.(keepIn === undefined ? undefined : store?.store)
    for (const m of walked?.found ?? []) places.push({ path: join(root, m.rel), rule: show(m.rule), level: levelOf(m.rule) })
    const far = walkOutside?.()
    for (const m of far?.found ?? []) places.push({ path: m.path, rule: show(m.rule), level: levelOf(m.rule) })
    const unwalkable = far?.unwalkable !== undefined ? { unwalkable: show(far.unwalkable) } : {}
    return { places, stopped: walked?.stopped === true, ...unwalkable, ...(asked !== undefined ? { asked } : {}) }
  }
}

