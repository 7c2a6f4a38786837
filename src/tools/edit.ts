import { Effect, Schema } from "effect"
import { editFile } from "../edit/edit-file.ts"
import { STRATEGY_DESCRIPTIONS } from "../edit/match.ts"
import { DryRunParam, Sha256Param } from "../edit/params.ts"
import { changeCounts, changedBody, fileOps, keptFormat, replacedLines, shortHash, writtenFileData } from "../edit/report.ts"
import { savedDiff } from "./saved-diff.ts"
import { shownChange, withoutQuotedLines } from "./read-withheld.ts"
import { hint, renderHint, shellQuote } from "../protocol/hint.ts"
import { withEol } from "../edit/text-encoding.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { refuseProtectedPath } from "../sandbox/protected-write.ts"
import { protectionInPrecheck, protectionInRun } from "./call-protection.ts"
import description from "./edit.md" with { type: "text" }
import { withEditErrors } from "./edit-errors.ts"

const span = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`)

/** edit: replace one exact, unique piece of a file (or every occurrence with replace_all). */
export const editTool = defineTool({
  name: "edit",
  title: "Edit",
  description,
  aliases: ["edit_file", "str_replace"],
  parameterAliases: {
    file_path: "path",
    filePath: "path",
    old_str: "old_string",
    oldString: "old_string",
    new_str: "new_string",
    newString: "new_string",
    replaceAll: "replace_all",
  },
  permission: "ask",
  readOnly: false,
  parameters: Schema.Struct({
    path: Schema.String.annotate({ description: "The file." }),
    old_string: Schema.String.annotate({
      description:
        "Exact text to replace.",
    }),
    new_string: Schema.String.annotate({ description: "Replacement (must differ)." }),
    replace_all: Schema.optionalKey(Schema.Boolean.annotate({ description: "Replace every occurrence." })),
    expected_sha256: Schema.optionalKey(Sha256Param),
    dry_run: Schema.optionalKey(DryRunParam),
  }),
  // A protected path (git hooks, anvil.json, .vscode/…) is refused before anyone is asked to approve the change.
  precheck: (params) => withEditErrors(refuseProtectedPath(params.path, "path")).pipe(protectionInPrecheck(params)),
  run: (params) =>
    withEditErrors(Effect.gen(function* () {
      const dryRun = params.dry_run === true
      const outcome = yield* withoutQuotedLines(editFile({
        tool: "edit",
        path: params.path,
        edits: [{ old_string: params.old_string, new_string: params.new_string, replace_all: params.replace_all }],
        expectedSha256: params.expected_sha256,
        dryRun,
        field: (_, key) => key,
        label: () => "",
      }))
      const { target, format } = outcome
      const display = target.display
      const shown = yield* shownChange(display, outcome.commit)
      const commit = shown.commit
      const edit = outcome.edits[0]!
      const fuzzy = edit.strategy !== "exact"
      const operation = commit.created ? "create" : "replace"
      const where = edit.replacements > 1 ? replacedLines(edit.lines, edit.replacements) : span(edit.startLine, edit.endLine)
      const unchanged = commit.sha256Before === commit.sha256After
      const lines: Array<string> = [
        ...(fuzzy
          ? [`Not an exact match: found by '${edit.strategy}' (${STRATEGY_DESCRIPTIONS[edit.strategy]}) at ${span(edit.startLine, edit.endLine)}; check the lines below.`]
          : []),
        commit.created
          ? `Created ${display}: ${changeCounts(commit)}; sha256 ${shortHash(commit.sha256After)}.`
          : `${unchanged ? "Matched" : "Replaced"} ${edit.replacements === 1 ? "" : `${edit.replacements} places `}at ${where}: ${changeCounts(commit)}; sha256 ${shortHash(commit.sha256After)}${keptFormat(format, true)}.`,
        ...shown.notes,
      ]
      const readBack = hint("Read", "high", { path: display, offset: Math.max(0, edit.startLine - 4), limit: Math.max(20, edit.endLine - edit.startLine + 8) })
      // Line endings are kept per line, so an edit that only swaps them changes nothing: the way that does is a command.
      const endingsOnly = unchanged && withEol(params.old_string, "\n") === withEol(params.new_string, "\n")
      const toCrlf = params.new_string.includes("\r\n") && !params.old_string.includes("\r\n")
      const convert = hint("Bash", "high", { command: `sed -i ${toCrlf ? "'s/\\r\\?$/\\r/'" : "'s/\\r$//'"} ${shellQuote(display)}` })
      if (endingsOnly) {
        lines.push(
          `old_string and new_string differ only in line endings, and edit keeps each line's own ending. To change ${display}'s line endings to ${toCrlf ? "CRLF" : "LF"}: ${renderHint(convert)}`,
        )
      }
      return {
        status: fuzzy || dryRun ? ("partial" as const) : ("success" as const),
        header: `Edit: ${display}`,
        data: {
          applied: commit.applied,
          path: display,
          operation,
          created: commit.created,
          replace_all: params.replace_all === true,
          replacements: edit.replacements,
          match_strategy: edit.strategy,
          start_line: edit.startLine,
          end_line: edit.endLine,
          lines: edit.lines,
          ...writtenFileData(commit, format),
          ...shown.data,
        },
        text: changedBody(lines, commit.diff, dryRun),
        stats: { replacements: edit.replacements, additions: commit.diff.additions, deletions: commit.diff.deletions },
        context: { path_resolved: display },
        hints: endingsOnly ? [convert, readBack] : [readBack],
        meta: fileOps(display, operation, commit),
        ...savedDiff(commit.diff, display),
      }
    })).pipe(protectionInRun(params)),
})
