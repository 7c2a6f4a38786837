import { Effect, Schema } from "effect"
import { editFile } from "../edit/edit-file.ts"
import { DryRunParam, Sha256Param } from "../edit/params.ts"
import { changeCounts, changedBody, fileOps, keptFormat, replacedLines, shortHash, writtenFileData } from "../edit/report.ts"
import { savedDiff } from "./saved-diff.ts"
import { shownChange, withoutQuotedLines } from "./read-withheld.ts"
import { hint } from "../protocol/hint.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { refuseProtectedPath } from "../sandbox/protected-write.ts"
import { protectionInPrecheck, protectionInRun } from "./call-protection.ts"
import description from "./multiedit.md" with { type: "text" }
import { withEditErrors } from "./edit-errors.ts"
import { counted } from "../protocol/plural.ts"

const EditItem = Schema.Struct({
  old_string: Schema.String.annotate({ description: "Exact text to replace." }),
  new_string: Schema.String.annotate({ description: "Replacement (must differ)." }),
  replace_all: Schema.optionalKey(Schema.Boolean.annotate({ description: "Replace every occurrence." })),
})

/** multiedit: several edits to one file, applied in order, all or nothing. */
export const multieditTool = defineTool({
  name: "multiedit",
  title: "MultiEdit",
  description,
  aliases: ["multi_edit"],
  parameterAliases: {
    file_path: "path",
    filePath: "path",
    // The names edit accepts, inside each edit too.
    "edits[].old_str": "old_string",
    "edits[].oldString": "old_string",
    "edits[].new_str": "new_string",
    "edits[].newString": "new_string",
    "edits[].replaceAll": "replace_all",
  },
  permission: "ask",
  readOnly: false,
  parameters: Schema.Struct({
    path: Schema.String.annotate({ description: "The file." }),
    edits: Schema.Array(EditItem)
      .check(Schema.isMinLength(1))
      .annotate({ description: "Applied in order." }),
    expected_sha256: Schema.optionalKey(Sha256Param),
    dry_run: Schema.optionalKey(DryRunParam),
  }),
  // A protected path (git hooks, anvil.json, .vscode/…) is refused before anyone is asked to approve the change.
  precheck: (params) => withEditErrors(refuseProtectedPath(params.path, "path")).pipe(protectionInPrecheck(params)),
  run: (params) =>
    withEditErrors(Effect.gen(function* () {
      const dryRun = params.dry_run === true
      const n = params.edits.length
      const outcome = yield* withoutQuotedLines(editFile({
        tool: "multiedit",
        path: params.path,
        edits: params.edits,
        expectedSha256: params.expected_sha256,
        dryRun,
        field: (i, key) => `edits.${i}.${key}`,
        label: (i) => `edits[${i}] (edit ${i + 1} of ${n}): `,
      }))
      const { target, format } = outcome
      const display = target.display
      const shown = yield* shownChange(display, outcome.commit)
      const commit = shown.commit
      const total = outcome.edits.reduce((sum, e) => sum + e.replacements, 0)
      const fuzzy = outcome.edits.filter((e) => e.strategy !== "exact")
      const operation = "multi_edit"
      const lines = [
        ...(fuzzy.length > 0
          ? [`Not exact: ${fuzzy.map((e) => `edits[${e.index}] found by ${e.strategy}`).join(", ")}; check the lines below.`]
          : []),
        `${commit.created ? "Created" : commit.sha256Before === commit.sha256After ? "Matched in" : "Changed"} ${display}: ${counted(total, "replacement")} by ${counted(n, "edit")} (${outcome.edits
          .map((e) => `${e.index + 1}: ${replacedLines(e.lines, e.replacements)}`)
          .join("; ")}): ${changeCounts(commit)}; sha256 ${shortHash(commit.sha256After)}${keptFormat(format, !commit.created)}.`,
        ...shown.notes,
      ]
      const firstLine = commit.diff.firstChangedLine ?? 1
      return {
        status: fuzzy.length > 0 || dryRun ? ("partial" as const) : ("success" as const),
        header: `MultiEdit: ${display}`,
        data: {
          applied: commit.applied,
          path: display,
          operation,
          created: commit.created,
          edit_count: n,
          total_replacements: total,
          edits: outcome.edits.map((e) => ({
            index: e.index,
            replacements: e.replacements,
            match_strategy: e.strategy,
            start_line: e.startLine,
            end_line: e.endLine,
          })),
          ...writtenFileData(commit, format),
          ...shown.data,
        },
        text: changedBody(lines, commit.diff, dryRun),
        stats: { total_replacements: total, additions: commit.diff.additions, deletions: commit.diff.deletions },
        context: { path_resolved: display },
        hints: [hint("Read", "high", { path: display, offset: Math.max(0, firstLine - 4), limit: 200 })],
        meta: fileOps(display, operation, commit),
        ...savedDiff(commit.diff, display),
      }
    })).pipe(protectionInRun(params)),
})
