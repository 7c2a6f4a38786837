import { Effect, Option } from "effect"
import { Config } from "../config/config.ts"
import { hiddenPaths, type HiddenPaths } from "../permission/hidden-paths.ts"
import { denyReason } from "../permission/deny-source.ts"
import { ToolError } from "../protocol/tool-error.ts"
import { kindOfPath } from "../workspace/checked-fs.ts"
import { Workspace } from "../workspace/workspace.ts"

/** What the permission rules hide from a search tool (see permission/hidden-paths.ts), from the settings in force. */
export const searchHidden = (toolName: string): Effect.Effect<HiddenPaths | undefined, never, Config> =>
  Effect.map(Config, (config) => hiddenPaths(config, toolName))

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
      return yield* new ToolError({
        code: "PERMISSION_DENIED",
        message: denyReason(toolName, ` (${display === form ? display : `${display} -> ${form}`})`, rule),
        retryable: false,
        context: { denied_by: { rule: rule.rule, where: rule.where } },
      })
    }
  })
