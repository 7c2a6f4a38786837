import { Effect } from "effect"
import { Config } from "../config/config.ts"
import type { CommitOutcome } from "../edit/target-file.ts"
import { EditError } from "../edit/edit-error.ts"
import type { WorkspaceError } from "../workspace/workspace-error.ts"
import { hiddenPaths } from "../permission/hidden-paths.ts"
import { Workspace } from "../workspace/workspace.ts"

/** The `read` rule (deny or ask) that keeps what the root-relative file `display` holds out of answers, if one does. */
const readHidingRule = (display: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    return hiddenPaths(yield* Config, "read", true, ws.root)?.hidingRule(display, false)
  })

/**
 * A file change as its answer may show it. write, edit and multiedit change a file a `read` rule denies or asks about
 * when their own rules let them, but their diff would print what the file held (`-SECRET=1`): its lines are left out,
 * as grep and git_diff leave them out, with the counts kept and the rule named (`data.diff_withheld`).
 */
export const shownChange = (display: string, commit: CommitOutcome) =>
  Effect.gen(function* () {
    const rule = yield* readHidingRule(display)
    if (rule === undefined) return { commit, notes: [] as Array<string>, data: {} }
    const { whole: _whole, ...diff } = commit.diff
    return {
      commit: { ...commit, diff: { ...diff, diff: "" } },
      notes: [`Its lines are not shown: the read ${rule.level} rule ${rule.rule} in "permission" of ${rule.where} keeps what ${display} holds out of answers.`],
      data: { diff_withheld: { rule: rule.rule, where: rule.where, level: rule.level } },
    }
  })

/**
 * An edit's failure without the lines of the file it would quote (the nearest regions to a missing old_string, the
 * places an ambiguous one matches) when a `read` rule keeps what the file holds out of answers: the rule is named
 * in their place.
 */
export const withoutQuotedLines = <A, R>(run: Effect.Effect<A, EditError | WorkspaceError, R>) =>
  run.pipe(
    Effect.catchTag("EditError", (e) =>
      Effect.gen(function* () {
        const rule = e.details === undefined || e.details === "" || e.path === undefined ? undefined : yield* readHidingRule(e.path)
        if (rule === undefined) return yield* Effect.fail(e)
        // Rebuilt field by field: a tagged error's message is not an own enumerable property.
        return yield* Effect.fail(
          new EditError({
            reason: e.reason,
            message: e.message,
            ...(e.field ? { field: e.field } : {}),
            ...(e.path !== undefined ? { path: e.path } : {}),
            ...(e.hints ? { hints: e.hints } : {}),
            details: `The file's lines are not shown: the read ${rule.level} rule ${rule.rule} in "permission" of ${rule.where} keeps what ${e.path} holds out of answers.`,
          }),
        )
      }),
    ),
  )
