import { join } from "node:path"
import { maskWalker } from "./mask-walk.ts"
import type { PatternRule } from "./rules.ts"

const WILD = /[*?[\]{}]/

/** What the walks outside the project found, and the first rule whose places cannot all be found. */
export interface OutsideFound {
  readonly found: ReadonlyArray<{ readonly path: string; readonly rule: PatternRule }>
  readonly unwalkable?: PatternRule
}

/**
 * The places absolute `read` patterns with a wildcard name outside the project (`/srv/keys/*.pem`,
 * `/home/me/notes/**\/*.key`), for the sandbox to hide as read refuses them: each pattern is looked for by a walk of
 * the folder it starts at (its part before the first wildcard), as the project's patterns are (mask-walk.ts: a
 * folder's result kept until its stamp changes, dependency and build folders entered only for a rule anchored into
 * them), as each command starts. A pattern that starts at `/` itself (`/**\/secret*`) would need a walk of the whole
 * machine, and a walk that stops at MAX_MASK_ENTRIES leaves places unfound: either is `unwalkable`, and the sandbox
 * then runs no command rather than hide only some (rule-masks.ts).
 */
export const outsideWalks = (rules: ReadonlyArray<PatternRule>): (() => OutsideFound) => {
  const groups = new Map<string, Array<{ readonly rule: PatternRule; readonly local: PatternRule }>>()
  let fromRoot: PatternRule | undefined
  for (const rule of rules) {
    const parts = rule.pattern.trim().split("/")
    const wild = parts.findIndex((p) => WILD.test(p))
    const lead = parts.slice(0, wild).join("/")
    if (lead === "") {
      fromRoot ??= rule
      continue
    }
    // The rest, anchored at the lead folder (`./` keeps a bare `*.pem` from matching at any depth).
    const local: PatternRule = { ...rule, pattern: `./${parts.slice(wild).join("/")}` }
    const group = groups.get(lead) ?? []
    group.push({ rule, local })
    groups.set(lead, group)
  }
  const walks = [...groups].map(([lead, pairs]) => ({ lead, back: new Map(pairs.map((p) => [p.local, p.rule])), walk: maskWalker(lead, pairs.map((p) => p.local)) }))
  return () => {
    const found: Array<{ readonly path: string; readonly rule: PatternRule }> = []
    let unwalkable = fromRoot
    for (const { lead, back, walk } of walks) {
      const walked = walk()
      if (walked.stopped) unwalkable ??= back.values().next().value
      for (const m of walked.found) found.push({ path: join(lead, m.rel), rule: back.get(m.rule) ?? m.rule })
    }
    return { found, ...(unwalkable ? { unwalkable } : {}) }
  }
}
