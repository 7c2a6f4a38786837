import { Effect, Option } from "effect"
import { Config } from "../config/config.ts"
import { hiddenPaths, type HiddenPaths } from "../permission/hidden-paths.ts"
import { denyReason, type DenyingRule } from "../permission/deny-source.ts"
import { hint } from "../protocol/hint.ts"
import { ToolError } from "../protocol/tool-error.ts"
import { kindOfPath } from "../workspace/checked-fs.ts"
import { Workspace } from "../workspace/workspace.ts"

/** Tools whose answers show what files hold (lines, diffs, a language server's view of a file): read's ask rules hide from them too. */
const SHOWS_CONTENT = new Set(["grep", "git_diff", "lsp_hover", "lsp_definition", "lsp_diagnostics"])

/**
 * What the permission rules hide from a search tool (see permission/hidden-paths.ts), from the settings in force.
 * The tools that show what files hold also leave out what read asks about (SHOWS_CONTENT); glob and list show only names.
 */
export const searchHidden = (toolName: string): Effect.Effect<HiddenPaths | undefined, never, Config | Workspace> =>
  Effect.gen(function* () {
    const config = yield* Config
    const ws = yield* Workspace
    return withheldToo(ws, hiddenPaths(config, toolName, SHOWS_CONTENT.has(toolName), ws.root))
  })

/**
 * `hidden` and the secrets the file tools keep out of in the folders outside the project they may reach
 * (Workspace `withheld`): a search there neither walks into `~/.ssh` nor names what it holds, as a command sees an
 * empty folder. Such paths are absolute (results name what is outside the project so).
 */
const withheldToo = (ws: Workspace["Service"], hidden: HiddenPaths | undefined): HiddenPaths | undefined => {
  if (!ws.withholds) return hidden
  const out = (path: string) => path.startsWith("/") && !ws.contains(path)
  if (hidden === undefined) return { hides: out, rgExcludes: () => [], hidingRule: () => undefined, askRulesIn: () => [] }
  return { ...hidden, hides: (path, dir) => out(path) || hidden.hides(path, dir) }
}

/** The refusal of a call about a place read asks about: it would show what read asks before showing. */
const askedRootMessage = (toolName: string, shown: string, dir: boolean, rule: DenyingRule): string =>
  `The '${toolName}' call (${shown}) is not run: read asks before opening ${dir ? "the files of this folder" : "this file"} ` +
  `(the rule ${rule.rule} in "permission" of ${rule.where}), and this call would show what ${dir ? "they hold" : "it holds"} without asking. ` +
  `Read ${dir ? "the files you need" : "it"} with read, which asks the user first.`

/** The root-relative forms of a resolved path: as named and, through a link, where it really is. */
export const shownForms = (ws: Workspace["Service"], display: string, real: string): ReadonlyArray<string> => [...new Set([display, ws.display(real)])]

/**
 * A search tool's precheck: a search rooted at a path the rules hide (a denied file, a folder a deny rule
 * covers) is refused with PERMISSION_DENIED naming the rule, as read refuses that path. A path that does not
 * resolve is left to the call, and so is one that names nothing unless `missingToo` (git_diff shows a deleted
 * file's content: a name the rules hide as a file or as a folder is refused).
 */
export const refuseHiddenRoot = (toolName: string, input: string, missingToo = false) =>
  Effect.gen(function* () {
    const hidden = yield* searchHidden(toolName)
    if (hidden === undefined) return
    const ws = yield* Workspace
    const resolved = yield* Effect.option(ws.resolve(input))
    if (Option.isNone(resolved) || (!resolved.value.exists && !missingToo)) return
    const { display, real, exists } = resolved.value
    const dir = yield* Effect.sync(() => {
      try {
        return kindOfPath(real) === "Directory"
      } catch {
        return false
      }
    })
    for (const form of shownForms(ws, display, real)) {
      const rule = hidden.hidingRule(form, dir) ?? (exists ? undefined : hidden.hidingRule(form, true))
      if (rule === undefined) continue
      const shown = display === form ? display : `${display} -> ${form}`
      if (rule.level === "ask") {
        return yield* new ToolError({
          code: "PERMISSION_DENIED",
          message: askedRootMessage(toolName, shown, dir, rule),
          retryable: false,
          context: { asked_by: { rule: rule.rule, where: rule.where } },
          ...(dir ? {} : { hints: [hint("Read", "high", { file_path: display })] }),
        })
      }
      return yield* new ToolError({
        code: "PERMISSION_DENIED",
        message: denyReason(toolName, ` (${shown})`, rule),
        retryable: false,
        context: { denied_by: { rule: rule.rule, where: rule.where } },
      })
    }
  })

/** What to do about a file grep leaves out because read asks about it. */
export const ASKED_NEXT_STEP = "Read such a file with read, which asks the user before opening it."

/** The line of grep's answer naming the `read` ask rules whose files it left out. */
export const askedNote = (rules: ReadonlyArray<{ readonly rule: string; readonly where: string }>): string =>
  `Not searched: files read asks about before opening them (${rules
    .slice(0, 3)
    .map((r) => `${r.rule} in ${r.where}`)
    .join("; ")}${rules.length > 3 ? `; and ${rules.length - 3} more (data.not_searched)` : ""}). ${ASKED_NEXT_STEP}`
