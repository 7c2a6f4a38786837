import { Effect, Schema } from "effect"
import { editFile } from "../edit/edit-file.ts"
import { DryRunParam, Sha256Param } from "../edit/params.ts"
import { body, changesLine, createdLine, fileOps, formatLine, hashLines, writtenFileData } from "../edit/report.ts"
import { hint } from "../protocol/hint.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./multiedit.md" with { type: "text" }
import { withEditErrors } from "./edit-errors.ts"

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
  parameterAliases: { file_path: "path", filePath: "path" },
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
  run: (params) =>
    withEditErrors(Effect.gen(function* () {
      const dryRun = params.dry_run === true
      const n = params.edits.length
      const outcome = yield* editFile({
        tool: "multiedit",
        path: params.path,
        edits: params.edits,
        expectedSha256: params.expected_sha256,
        dryRun,
        field: (i, key) => `edits.${i}.${key}`,
        label: (i) => `edits[${i}] (edit ${i + 1} of ${n}): `,
      })
      const { target, commit, format } = outcome
      const display = target.display
      const total = outcome.edits.reduce((sum, e) => sum + e.replacements, 0)
      const fuzzy = outcome.edits.filter((e) => e.strategy !== "exact")
      const operation = "multi_edit"
      const lines = [
        ...(fuzzy.length > 0
          ? [
              `${fuzzy.length} of ${n} edits did not match exactly and were placed by a fallback (${fuzzy
                .map((e) => `edits[${e.index}]: ${e.strategy}`)
                .join(", ")}). Check the diff below is what you meant.`,
              "",
            ]
          : []),
        `Total replacements: ${total}`,
        createdLine(commit),
        `File bytes: ${commit.fileBytes}`,
        ...hashLines(commit),
        `Path: ${display}`,
        `Edits:`,
        ...outcome.edits.map(
          (e) =>
            `  ${e.index + 1}. ${e.replacements} replacement${e.replacements === 1 ? "" : "s"} at line${e.lines.length === 1 ? "" : "s"} ${e.lines.join(", ")} (${e.strategy})`,
        ),
        formatLine(format, !commit.created),
        changesLine(commit.diff),
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
        },
        text: body(lines, commit.diff, dryRun),
        stats: { total_replacements: total, additions: commit.diff.additions, deletions: commit.diff.deletions },
        context: { path_resolved: display },
        hints: [hint("Read", "high", { path: display, offset: Math.max(0, firstLine - 4), limit: 200 })],
        meta: fileOps(display, operation, commit),
      }
    })),
})
