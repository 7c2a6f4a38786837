import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { DEFAULT_MAX_DIFF_LINES, DEFAULT_MAX_FILE_BYTES } from "../config/sections/tools.ts"
import { DryRunParam, parentOf, Sha256Param } from "../edit/params.ts"
import { changeCounts, changedBody, fileOps, keptFormat, shortHash, writtenFileData } from "../edit/report.ts"
import { savedDiff } from "./saved-diff.ts"
import { shownChange } from "./read-withheld.ts"
import { guardFresh } from "../edit/stale-guard.ts"
import { commitText, openTarget } from "../edit/target-file.ts"
import { detectEol, encodable, withEol, type TextFormat } from "../edit/text-encoding.ts"
import { hint } from "../protocol/hint.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { refuseProtectedPath } from "../sandbox/protected-write.ts"
import { protectionInPrecheck, protectionInRun } from "./call-protection.ts"
import { toolError } from "../protocol/tool-error.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import description from "./write.md" with { type: "text" }
import { withEditErrors } from "./edit-errors.ts"
import { counted } from "../protocol/plural.ts"

/** write: create or overwrite a whole file, atomically, with a diff of what changed. */
const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0))

export const writeTool = defineTool({
  name: "write",
  title: "Write",
  description,
  aliases: ["write_file", "create_file"],
  parameterAliases: { file_path: "path", filePath: "path", filename: "path", contents: "content", text: "content" },
  permission: "ask",
  readOnly: false,
  parameters: Schema.Struct({
    path: Schema.String.annotate({ description: "The file." }),
    content: Schema.String.annotate({ description: "The complete new content." }),
    expected_sha256: Schema.optionalKey(Sha256Param),
    dry_run: Schema.optionalKey(DryRunParam),
  }),
  // A protected path (git hooks, anvil.json, .vscode/…) is refused before anyone is asked to approve the change.
  precheck: (params) => withEditErrors(refuseProtectedPath(params.path, "path")).pipe(protectionInPrecheck(params)),
  run: (params) =>
    withEditErrors(Effect.gen(function* () {
      const config = yield* Config
      const ledger = yield* FileLedger
      const maxBytes = config.get("tools.write.max_file_bytes", DEFAULT_MAX_FILE_BYTES)
      const maxDiffLines = config.get("tools.write.max_diff_lines", DEFAULT_MAX_DIFF_LINES)
      const target = yield* openTarget(params.path, { maxBytes, limitKey: "tools.write.max_file_bytes" })
      const { display } = target
      const existing = target.existing
      const dryRun = params.dry_run === true

      if (existing) {
        yield* guardFresh({ ledger, key: target.writePath, display, current: existing, expectedSha256: params.expected_sha256 })
      } else if (params.expected_sha256 !== undefined) {
        return yield* toolError("CONFLICT", `${display} does not exist, but expected_sha256 names a version of it.`, {
          hints: [hint("LS", "medium", { path: parentOf(display) })],
          context: { path_resolved: display },
        })
      }

      // An existing file keeps its encoding, BOM and CRLF line endings (content given with plain LF is converted).
      const notes: Array<string> = []
      let text = params.content
      let format: TextFormat = { encoding: "utf-8", bom: false, eol: detectEol(text) }
      if (existing) {
        const old = existing.decoded.format
        const keepEncoding = encodable(text, old.encoding)
        if (!keepEncoding) notes.push(`The file was ${old.encoding}; the new content does not fit that encoding, so it was written as UTF-8.`)
        if (old.eol === "crlf" && text.includes("\n") && !text.includes("\r\n")) text = withEol(text, "\r\n")
        format = {
          encoding: keepEncoding ? old.encoding : "utf-8",
          bom: keepEncoding ? old.bom : false,
          eol: detectEol(text),
        }
        // Content that starts with its own byte-order mark onto a file that keeps one: one mark, not two.
        if (format.bom && text.startsWith("\uFEFF")) text = text.slice(1)
        if (old.eol !== format.eol && old.eol !== "none" && format.eol !== "none") {
          notes.push(`Line endings changed from ${old.eol.toUpperCase()} to ${format.eol.toUpperCase()}.`)
        }
      }
      const shown = yield* shownChange(display, yield* commitText({ target, text, format, dryRun, maxDiffLines }))
      const commit = shown.commit
      notes.push(...shown.notes)
      const operation = commit.created ? "create" : "overwrite"
      const lines = [
        commit.created
          ? `Created ${display}: ${counted(commit.fileBytes, "byte")}, ${counted(lineCount(text), "line")}; sha256 ${shortHash(commit.sha256After)}.`
          : `Overwrote ${display}: ${changeCounts(commit)}, ${counted(commit.fileBytes, "byte")}; sha256 ${shortHash(commit.sha256After)}${notes.length === 0 ? keptFormat(format, true) : ""}.`,
        ...notes,
      ]
      return {
        status: dryRun ? ("partial" as const) : ("success" as const),
        header: `Write: ${display}`,
        data: {
          applied: commit.applied,
          created: commit.created,
          operation,
          ...writtenFileData(commit, format),
          ...shown.data,
          path: display,
        },
        text: commit.created ? changedBody(lines, { ...commit.diff, diff: "" }, dryRun) : changedBody(lines, commit.diff, dryRun),
        stats: { bytes_written: commit.bytesWritten, additions: commit.diff.additions, deletions: commit.diff.deletions },
        context: { path_resolved: display },
        hints: dryRun
          ? [hint("Write", "high", { path: display, content: "<same content>", dry_run: false })]
          : [hint("Read", "high", { path: display, offset: 0, limit: 200 })],
        meta: fileOps(display, operation, commit),
        ...savedDiff(commit.diff, display),
      }
    })).pipe(protectionInRun(params)),
})
