import { Effect } from "effect"
import { inTheWayNote, pathStop } from "../workspace/file-in-the-way.ts"
import type { FileSystem } from "effect/FileSystem"
import type { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import type { Workspace } from "../workspace/workspace.ts"
import type { WorkspaceError } from "../workspace/workspace-error.ts"
import { applyEdit, type EditSpec } from "./apply.ts"
import { EditError } from "./edit-error.ts"
import type { MatchStrategy } from "./match.ts"
import { DEFAULT_MAX_DIFF_LINES, DEFAULT_MAX_FILE_BYTES } from "../config/sections/tools.ts"
import { parentOf } from "./params.ts"
import { guardFresh } from "./stale-guard.ts"
import { commitText, openTarget, type CommitOutcome, type TargetFile } from "./target-file.ts"
import { detectEol, encodable, type TextFormat } from "./text-encoding.ts"

/** What one edit of a run did. */
export interface EditReport {
  readonly index: number
  readonly replacements: number
  readonly strategy: MatchStrategy
  /** Lines (in the text as this edit found it) where its replacements started; at most 20. */
  readonly lines: ReadonlyArray<number>
  readonly startLine: number
  readonly endLine: number
}

export interface EditFileOutcome {
  readonly target: TargetFile
  readonly commit: CommitOutcome
  readonly edits: ReadonlyArray<EditReport>
  readonly format: TextFormat
}

export interface EditFileInput {
  /** "edit" or "multiedit": names the settings (tools.<name>.max_file_bytes, …). */
  readonly tool: string
  readonly path: string
  readonly edits: ReadonlyArray<EditSpec>
  readonly expectedSha256?: string | undefined
  readonly dryRun: boolean
  /** The parameter an edit's field is reported as: "old_string" for edit, "edits.2.old_string" for multiedit. */
  readonly field: (index: number, key: keyof EditSpec) => string
  /** How an error names edit `index` ("" for a single edit, "edits[2] (edit 3 of 4): " for multiedit). */
  readonly label: (index: number) => string
}

const readAround = (display: string, line: number | undefined): RetrievalHint =>
  line === undefined
    ? hint("Read", "high", { path: display })
    : hint("Read", "high", { path: display, offset: Math.max(0, line - 6), limit: 40 })

/**
 * Applies a list of edits to one file, in order, all or nothing: the
 * file is loaded and checked for staleness once, each edit is placed in the
 * text the previous ones left, and only when every edit found its place is the
 * result written, atomically. An empty old_string creates a missing file (or
 * fills an empty one) with its new_string.
 */
export const editFile = (
  input: EditFileInput,
): Effect.Effect<EditFileOutcome, EditError | WorkspaceError, Workspace | FileSystem | Path | FileLedger | Config> =>
  Effect.gen(function* () {
    const config = yield* Config
    const ledger = yield* FileLedger
    const maxBytes = config.get(`tools.${input.tool}.max_file_bytes`, DEFAULT_MAX_FILE_BYTES)
    const maxDiffLines = config.get(`tools.${input.tool}.max_diff_lines`, DEFAULT_MAX_DIFF_LINES)

    for (const [i, edit] of input.edits.entries()) {
      if (edit.old_string === edit.new_string) {
        const field = input.field(i, "new_string")
        return yield* new EditError({
          reason: "invalid_edit",
          message: `${input.label(i)}new_string is the same as old_string, so the edit would change nothing.`,
          field: { name: field, problem: "must differ from old_string" },
        })
      }
      if (i > 0 && edit.old_string === "") {
        const field = input.field(i, "old_string")
        return yield* new EditError({
          reason: "invalid_edit",
          message: `${input.label(i)}old_string is empty; only the first edit may use an empty old_string (to create the file).`,
          field: { name: field, problem: "empty" },
        })
      }
    }

    const target = yield* openTarget(input.path, { maxBytes, limitKey: `tools.${input.tool}.max_file_bytes` })
    const { display } = target
    const existing = target.existing
    const first = input.edits[0]!

    if (!existing) {
      // Where the path stops: a file in its way, or the nearest folder that exists (the one to list).
      const stop = pathStop(target.resolved.absolute, display)
      const around = hint("LS", "medium", { path: stop?.folder ?? parentOf(display) })
      if (first.old_string !== "") {
        return yield* new EditError({
          reason: "missing",
          message: `File not found: ${display}${inTheWayNote(stop?.inTheWay)}. To create a file use Write, or an edit with an empty old_string and the content as new_string.`,
          hints: [around, hint("Glob", "low", { pattern: `**/${display.split("/").pop()}` })],
          path: display,
        })
      }
      if (input.expectedSha256 !== undefined) {
        return yield* new EditError({
          reason: "stale",
          message: `${display} does not exist, but expected_sha256 names a version of it.`,
          hints: [around],
          path: display,
        })
      }
    } else {
      yield* guardFresh({ ledger, key: target.writePath, display, current: existing, expectedSha256: input.expectedSha256 })
    }

    const format: TextFormat = existing ? existing.decoded.format : { encoding: "utf-8", bom: false, eol: "none" }
    let text = existing ? existing.decoded.text : ""
    const reports: Array<EditReport> = []
    for (const [i, edit] of input.edits.entries()) {
      if (!encodable(edit.new_string, format.encoding)) {
        const field = input.field(i, "new_string")
        return yield* new EditError({
          reason: "invalid_edit",
          message: `${input.label(i)}new_string has characters that ${display}'s encoding (${format.encoding}) cannot hold; nothing was written.`,
          field: { name: field, problem: `not representable in ${format.encoding}` },
          path: display,
        })
      }
      if (edit.old_string === "") {
        if (text !== "") {
          const field = input.field(i, "old_string")
          return yield* new EditError({
            reason: "invalid_edit",
            message: `${input.label(i)}old_string is empty but ${display} is not: give the text to replace, or use Write to replace the whole file.`,
            field: { name: field, problem: "empty, but the file has content" },
            hints: [readAround(display, undefined)],
            path: display,
          })
        }
        text = edit.new_string
        reports.push({ index: i, replacements: 1, strategy: "exact", lines: [1], startLine: 1, endLine: 1 })
        continue
      }
      const where = i === 0 ? display : `${display} as the earlier edits left it`
      const applied = applyEdit(text, format.eol, edit, where)
      if (!applied.ok) {
        const field = input.field(i, "old_string")
        const { failure } = applied
        return yield* new EditError({
          reason: "invalid_edit",
          message: `${input.label(i)}${failure.message} Nothing was written.`,
          field: { name: field, problem: failure.kind === "ambiguous" ? "matches more than one place" : "not found in the file" },
          hints: [readAround(display, failure.line)],
          details: failure.details,
          path: display,
        })
      }
      text = applied.value.text
      reports.push({
        index: i,
        replacements: applied.value.replacements,
        strategy: applied.value.strategy,
        lines: applied.value.lines,
        startLine: applied.value.startLine,
        endLine: applied.value.endLine,
      })
    }

    const commit = yield* commitText({ target, text, format, dryRun: input.dryRun, maxDiffLines })
    return { target, commit, edits: reports, format: existing ? format : { ...format, eol: detectEol(text) } }
  })
