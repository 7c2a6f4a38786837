import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { READ_DEFAULTS } from "../config/sections/tools.ts"
import { type CutLine, formatBytes, readWindow, type TextWindow } from "../files/read-window.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import description from "./read.md" with { type: "text" }
import { withFilesErrors } from "./files-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { counted } from "../protocol/plural.ts"

const readSettings = Effect.gen(function* () {
  const config = yield* Config
  const output = yield* OutputSettings
  const get = (key: keyof typeof READ_DEFAULTS) => config.count(`tools.read.${key}`, READ_DEFAULTS[key])
  const maxLimit = get("max_limit")
  return {
    defaultLimit: Math.min(get("default_limit"), maxLimit),
    maxLimit,
    maxLineLength: get("max_line_length"),
    countMaxBytes: get("count_max_bytes"),
    utf16MaxBytes: get("utf16_max_bytes"),
    /** Bytes of content one read returns at most (the framework does not truncate a self-paginating tool). */
    maxBytes: config.count("tools.read.max_bytes", output.maxBytes),
  }
})

/** read: a window of a text file's lines, numbered, read in blocks. */
export const readTool = defineTool({
  name: "read",
  title: "Read",
  description,
  aliases: ["read_file", "view", "cat"],
  parameterAliases: { file_path: "path", filepath: "path", file: "path", offset_line: "offset", limit_lines: "limit" },
  readOnly: true,
  paginates: true,
  parameters: Schema.Struct({
    path: Schema.String.annotate({ description: "The file." }),
    offset: Schema.optionalKey(
      Schema.Int.annotate({
        description: "Lines to skip (default 0); negative: the last N lines.",
      }),
    ),
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Lines to return (default 50, max 200)." }),
    ),
    column: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: "Characters to skip in each line; a cut line's rest: its offset, limit 1 and its column.",
      }),
    ),
  }),
  run: (params) =>
    Effect.gen(function* () {
      const settings = yield* readSettings
      const w = yield* withWorkspaceErrors(withFilesErrors(readWindow({ ...settings, path: params.path, offset: params.offset ?? 0, limit: params.limit, column: params.column })))
      return windowResult(w, params.limit, settings)
    }),
})


/** The window as the model reads it: a status line and notes on the format and the cuts, then the numbered lines. */
const windowResult = (w: TextWindow, asked: number | undefined, settings: Effect.Success<typeof readSettings>): ToolResult => {
  const { shown, first, count, total, limit, content } = w
  const last = first + count - 1
  const windowPartial = w.hasMore || w.hasBefore
  const reasons = [...(w.stoppedByBytes ? ["byte_limit"] : windowPartial ? ["line_limit"] : []), ...(w.cutLines > 0 ? ["line_length"] : [])]
  const truncated = reasons.length > 0

  // The status line and notes.
  const range = count === 0 ? "" : first > 0 ? `Lines ${first}-${last}` : `Lines ${first} to ${last}`
  let status: string
  if (count === 0) status = total === 0 ? "Empty file (0 lines)." : `No lines in this range.`
  else if (total !== undefined) status = `${range} of ${total}`
  else if (first > 0) status = `${range} of more than ${last} (total not counted)`
  else status = `${range}, counted from the end (-1 is the last line; total not counted)`
  if (truncated) status += ` (TRUNCATED: ${reasons.join(", ")})`
  const notes: Array<string> = []
  if (w.bom || w.encoding !== "utf-8" || w.lineEnding === "crlf" || w.lineEnding === "mixed" || w.lineEnding === "cr") {
    const parts = [
      w.encoding === "latin1" ? "not valid UTF-8, shown as Latin-1" : w.encoding,
      ...(w.bom ? ["with a byte-order mark"] : []),
      ...(w.lineEnding === "crlf" ? ["CRLF line endings (shown without the CR)"] : []),
      ...(w.lineEnding === "mixed" ? ["mixed CRLF and LF line endings (shown without the CR)"] : []),
      // ripgrep reads such a file as one line, so read, grep and edit do too and their line numbers agree.
      ...(w.lineEnding === "cr" ? ["CR-only line endings (classic Mac OS): no line feed, so read, grep and edit see one line whose breaks are the CR characters kept in it"] : []),
    ]
    notes.push(`Format: ${parts.join(", ")}.`)
  }
  if (count > 0 && !w.hasMore && !w.finalNewline) notes.push("No newline at end of file.")
  if (asked !== undefined && asked > settings.maxLimit) notes.push(`limit ${asked} is above the maximum of ${settings.maxLimit}; returned at most ${settings.maxLimit} lines.`)
  if (w.stoppedByBytes) notes.push(`Stopped after ${counted(count, "line")} at the ${formatBytes(settings.maxBytes)} output budget.`)
  if (w.column > 0) notes.push(`Each line shown from column ${w.column} (its first ${counted(w.column, "character")} skipped).`)
  const short = w.shortOfColumn
  if (short.length === 1 && count === 1) notes.push(`Line ${short[0]!.line} ends before column ${w.column}${short[0]!.chars !== undefined ? ` (it has ${counted(short[0]!.chars, "character")})` : ""}: nothing of it is left to show.`)
  else if (short.length > 0) notes.push(`${counted(short.length, "line")} ${short.length === 1 ? "ends" : "end"} before column ${w.column} (shown empty).`)
  if (w.cutLines > 0) notes.push(cutNote(w))
  if (total === undefined) {
    notes.push(`Total line count not computed: the file is ${formatBytes(w.fileBytes)}, above the ${formatBytes(settings.countMaxBytes)} counting limit.`)
  }

  const hints: Array<RetrievalHint> = []
  if (w.nextOffset !== null) hints.push(hint("Read", "high", { path: shown, offset: w.nextOffset, limit }))
  else if (w.prevOffset !== null) hints.push(hint("Read", "high", { path: shown, offset: w.prevOffset, limit }))
  const firstCut = w.cut[0]
  if (firstCut !== undefined) hints.push(hint("Read", "high", restOfLine(shown, firstCut)))
  if (truncated) hints.push(hint("Grep", "medium", { pattern: "<keyword>", path: shown }))

  return {
    status: truncated ? "partial" : "success",
    header: `Read: ${shown}`,
    text: [[status, ...notes].join("\n"), content].filter((s) => s !== "").join("\n\n"),
    data: {
      path: shown,
      content,
      start_line: count > 0 ? first : 0,
      end_line: count > 0 ? last : 0,
      lines_returned: count,
      total_lines: total ?? null,
      ...(total === undefined ? { total_lines_estimate: w.estimate } : {}),
      has_more: w.hasMore,
      next_offset: w.nextOffset,
      truncated,
      file_bytes: w.fileBytes,
      encoding: w.encoding,
      bom: w.bom,
      line_ending: w.lineEnding,
      final_newline: w.finalNewline,
      long_lines_cut: w.cutLines,
      ...(w.cutLines > 0 ? { cut_lines: w.cut.map((c) => ({ line: c.line, shown_from: c.from, shown_chars: c.shown, total_chars: c.totalChars ?? null, bytes: c.bytes })) } : {}),
      ...(w.column > 0 ? { column: w.column } : {}),
      whole_file: !windowPartial && w.cutLines === 0 && w.column === 0,
    },
    stats: { lines_returned: count, file_bytes: w.fileBytes, ...(total !== undefined ? { total_lines: total } : {}) },
    context: { path_resolved: shown },
    hints,
    ...(truncated
      ? {
          truncation: {
            reason: reasons.join(","),
            ...(count > 0 ? { shown_range: { start_line: first, end_line: last } } : {}),
            total_estimate: w.estimate,
          },
        }
      : {}),
  }
}

/** The Read that continues a cut line where its shown part ended. */
const restOfLine = (path: string, c: CutLine) => ({ path, offset: c.line > 0 ? c.line - 1 : c.line, limit: 1, column: c.from + c.shown })

/** Cut lines listed at most this many by name; the rest are counted. */
const CUT_NAMED = 5

/** Which lines were cut, their full length, and the call that reads each one's rest. */
const cutNote = (w: TextWindow): string => {
  const named = w.cut.slice(0, CUT_NAMED).map((c) => {
    const total = c.totalChars !== undefined ? `${c.totalChars} characters` : `${c.bytes} bytes (characters not counted)`
    const r = restOfLine(w.shown, c)
    return `line ${c.line} (${total}; rest: offset=${r.offset}, limit=1, column=${r.column})`
  })
  const more = w.cut.length > CUT_NAMED ? `, and ${w.cut.length - CUT_NAMED} more (data.cut_lines)` : ""
  return `${counted(w.cutLines, "line")} cut after ${w.cut.length === 1 ? "its" : "their"} shown characters: ${named.join(", ")}${more}.`
}
