import { Effect } from "effect"
import { join } from "node:path"
import { Config } from "../config/config.ts"
import { hiddenPaths, type HidingRule } from "../permission/hidden-paths.ts"
import { counted } from "../protocol/plural.ts"
import type { Repository } from "../git/repository.ts"
import { Workspace } from "../workspace/workspace.ts"

/** A path a git tool's answer left out: the repository path, and whether it is a folder (an untracked one, a submodule). */
export interface Withheld {
  readonly path: string
  readonly dir: boolean
}

/**
 * What the permission rules hide from a git tool's answer: what `read` may not open (and the tool's own path
 * deny rules deny), as the search tools hide it, judged on repository paths made root-relative; for git_diff, whose
 * patches show what files hold, also what read asks about (as grep leaves it out: a diff cannot ask file by file,
 * and git_status shows only names, as glob and list do). Undefined when no rule hides a path.
 */
export interface GitHidden {
  readonly hides: (path: string, dir: boolean) => boolean
  /** The rules that hide `withheld`, each once, in the order met. */
  readonly rules: (withheld: ReadonlyArray<Withheld>) => ReadonlyArray<HidingRule>
}

/** The git tools whose answers show what files hold. */
const SHOWS_CONTENT = new Set(["git_diff"])

export const gitHidden = (toolName: string, repo: Repository): Effect.Effect<GitHidden | undefined, never, Config | Workspace> =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    // The root makes a rule written as an absolute path in the project count (permission/root-twins.ts).
    const hidden = hiddenPaths(yield* Config, toolName, SHOWS_CONTENT.has(toolName), ws.root)
    if (hidden === undefined) return undefined
    const shown = (path: string) => ws.display(join(repo.dir, path))
    return {
      hides: (path, dir) => hidden.hides(shown(path), dir),
      rules: (withheld) => {
        const out = new Map<string, HidingRule>()
        for (const w of withheld) {
          const rule = hidden.hidingRule(shown(w.path), w.dir)
          if (rule !== undefined && !out.has(`${rule.rule}\0${rule.where}`)) out.set(`${rule.rule}\0${rule.where}`, rule)
        }
        return [...out.values()]
      },
    }
  })

/** Entries of `items` the rules hide, judged by every path each names, and those they keep. */
export const splitHidden = <A>(
  hidden: GitHidden | undefined,
  items: ReadonlyArray<A>,
  pathsOf: (item: A) => ReadonlyArray<Withheld>,
): { readonly kept: ReadonlyArray<A>; readonly withheld: ReadonlyArray<Withheld> } => {
  if (hidden === undefined) return { kept: items, withheld: [] }
  const kept: Array<A> = []
  const withheld: Array<Withheld> = []
  for (const item of items) {
    const paths = pathsOf(item)
    // Every name of an entry that a rule hides is counted: a rename's other name is not shown either.
    if (paths.some((p) => hidden.hides(p.path, p.dir))) withheld.push(...paths)
    else kept.push(item)
  }
  return { kept, withheld }
}

/** How many distinct paths were withheld (a file ↔ symlink change is two entries of one path). */
const distinct = (withheld: ReadonlyArray<Withheld>) => new Set(withheld.map((w) => w.path)).size

/**
 * The answer's sentence and data for withheld paths: how many, and the rule that hides them with its file. No
 * name is given (the rule hides the names too); the count only says that such paths changed, never what they hold.
 * Paths withheld because read asks about them get the next step that helps: reading one with read, which asks.
 */
export const withheldReport = (hidden: GitHidden | undefined, withheld: ReadonlyArray<Withheld>, what: string) => {
  if (hidden === undefined || withheld.length === 0) return { text: "", data: {} }
  const n = distinct(withheld)
  const rules = hidden.rules(withheld)
  // Rules set in one file are named together: `"a" and "b" in "permission" of anvil.json`.
  const byFile = new Map<string, Array<string>>()
  for (const r of rules) byFile.set(r.where, [...(byFile.get(r.where) ?? []), r.rule])
  const named = [...byFile].map(([where, list]) => `${list.join(" and ")} in "permission" of ${where}`).join(", and ")
  const one = rules.length === 1
  const them = n === 1 ? "it" : "them"
  const asks = rules.length > 0 && rules.every((r) => r.level === "ask")
  const verb = asks ? (one ? "asks before reading" : "ask before reading") : rules.some((r) => r.level === "ask") ? "deny or ask before reading" : one ? "denies reading" : "deny reading"
  const next = asks
    ? `To see what one holds, read it with read, which asks the user first (a diff does not ask file by file).`
    : `To see ${them}, change ${one ? "that rule" : "those rules"}.`
  const text = `${counted(n, what)} not shown: ${one ? "the rule" : "the rules"} ${named} ${verb} ${them}. ${next}`
  return { text, data: { withheld: { count: n, rules: rules.map(({ rule, where, level }) => ({ rule, where, level })) } } }
}
