import { Effect, Schema } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { createHash } from "node:crypto"
import { readSync } from "node:fs"
import { Config } from "../config/config.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, ToolError, toolError } from "../protocol/tool-error.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { fileTypeName } from "../workspace/checked-fs.ts"
import { openCheckedScoped } from "../workspace/checked-open.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import {
  type ByteSource,
  countLines,
  findTailStart,
  type ForwardResult,
  memorySource,
  type RawLine,
  readForward,
} from "../workspace/line-window.ts"
import { similarPaths } from "../workspace/similar-paths.ts"
import { decodeBytes, decodeUtf16, SNIFF_BYTES, sniffText, type TextEncodingName } from "../workspace/text-sniff.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./read.md" with { type: "text" }
import { READ_DEFAULTS } from "../config/sections/tools.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"



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

const formatBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(1)} GB`

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** A line as the model sees it: decoded, and cut with a marker when longer than the cap. */
const renderLine = (line: RawLine, encoding: TextEncodingName, maxChars: number): { readonly text: string; readonly cut: boolean } => {
  const text = decodeBytes(line.head, encoding)
  if (line.head.length >= line.length && text.length <= maxChars) return { text, cut: false }
  let keep = Math.min(maxChars, text.length)
  const code = text.charCodeAt(keep - 1)
  if (code >= 0xd800 && code <= 0xdbff) keep-- // never split a surrogate pair
  return { text: `${text.slice(0, keep)}… [line truncated at ${maxChars} chars; the full line is ${line.length} bytes]`, cut: true }
}

/** The line-ending style seen in a sample and the returned lines (names as the edit tools use them). */
const lineEndingOf = (sample: Uint8Array, lines: ReadonlyArray<RawLine>): "lf" | "crlf" | "mixed" | "none" => {
  let crlf = 0
  let lf = 0
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] === 10) {
      if (i > 0 && sample[i - 1] === 13) crlf++
      else lf++
    }
  }
  for (const l of lines) if (l.crlf) crlf++
  return crlf > 0 && lf > 0 ? "mixed" : crlf > 0 ? "crlf" : lf > 0 ? "lf" : "none"
}

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
  }),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const ws = yield* Workspace
      const ledger = yield* FileLedger
      const settings = yield* readSettings
      const resolved = yield* ws.resolve(params.path)
      const shown = resolved.display

      const notFound = (why: string) =>
        Effect.gen(function* () {
          const suggestions = yield* similarPaths(resolved.absolute, { kind: "file" })
          const parent = shown.includes("/") ? shown.slice(0, shown.lastIndexOf("/")) : "."
          const hints: Array<RetrievalHint> = [
            ...suggestions.slice(0, 1).map((s) => hint("Read", "high", { path: s })),
            hint("LS", "medium", { path: parent }),
          ]
          return yield* toolError("NOT_FOUND", `File not found: ${shown}${why}`, {
            hints,
            context: { path_resolved: shown },
            ...(suggestions.length > 0 ? { details: `Did you mean:\n${suggestions.map((s) => `- ${s}`).join("\n")}` } : {}),
          })
        })

      if (!resolved.exists) return yield* notFound("")
      return yield* Effect.scoped(
        Effect.gen(function* () {
          // The file is opened first and its real place checked: a link swapped in after resolve() leads nowhere.
          const opened = yield* openCheckedScoped(ws.contains, resolved.absolute, params.path, shown)
          if (opened === undefined) return yield* notFound(" (a symbolic link whose target does not exist)")
          const stat = opened.stat
          if (stat.isDirectory()) {
            return yield* toolError("IS_DIRECTORY", `${shown} is a directory, not a file. Use LS to list it.`, {
              hints: [hint("LS", "high", { path: shown })],
              context: { path_resolved: shown },
            })
          }
          if (!stat.isFile()) {
            return yield* invalidParam("path", `${shown} is not a regular file (${fileTypeName(stat)}); only regular files can be read.`)
          }
          const size = Number(stat.size)
          const readAt = (position: number, into: Buffer): Effect.Effect<number, PlatformError> =>
            Effect.sync(() => {
              let got = 0
              while (got < into.length) {
                const n = readSync(opened.fd, into, got, into.length - got, position + got)
                if (n <= 0) break
                got += n
              }
              return got
            })
          const onFile: ByteSource<PlatformError> = { size, readAt }

          const sample = Buffer.allocUnsafe(Math.min(size, SNIFF_BYTES))
          const sampled = sample.length > 0 ? yield* readAt(0, sample) : 0
          const sniffed = sniffText(sample.subarray(0, sampled), size <= SNIFF_BYTES)
          if (sniffed.binary) {
            return yield* toolError("BINARY_FILE", `${shown} looks like a binary file (${formatBytes(size)}); it cannot be read as text.`, {
              hints: [hint("Bash", "low", { command: `file '${shown.replace(/'/g, "'\\''")}'` })],
              context: { path_resolved: shown },
            })
          }

          // UTF-16 is decoded whole and read as UTF-8; everything else is read in place.
          let source: ByteSource<PlatformError> = onFile
          let start = sniffed.bomLength
          if (sniffed.encoding === "utf-16le" || sniffed.encoding === "utf-16be") {
            if (size > settings.utf16MaxBytes) {
              return yield* toolError(
                "EXECUTION_ERROR",
                `${shown} is UTF-16 and ${formatBytes(size)}; UTF-16 files over ${formatBytes(settings.utf16MaxBytes)} are not read. Convert it (iconv -f UTF-16 -t UTF-8) first.`,
              )
            }
            const whole = Buffer.allocUnsafe(size)
            yield* readAt(0, whole)
            source = memorySource(Buffer.from(decodeUtf16(whole.subarray(2), sniffed.encoding), "utf8"))
            start = 0
          }
          const decodeAs: TextEncodingName = sniffed.encoding === "latin1" ? "latin1" : "utf-8"
          const bytes = source.size
          const countable = size <= settings.countMaxBytes

          // The window.
          const asked = params.limit
          const offset = params.offset ?? 0
          const tail = offset < 0
          const limit = Math.min(asked ?? (tail ? -offset : settings.defaultLimit), settings.maxLimit)
          // A line costs what it adds to the content: its number, tab, shown text and line break.
          const renderedLines = new Map<RawLine, ReturnType<typeof renderLine>>()
          const render = (line: RawLine) => {
            const known = renderedLines.get(line)
            if (known) return known
            const r = renderLine(line, decodeAs, settings.maxLineLength)
            renderedLines.set(line, r)
            return r
          }
          const cost = (line: RawLine) => 8 + Buffer.byteLength(render(line).text)
          const forward = { maxLineBytes: settings.maxLineLength * 4 + 4, maxWindowBytes: settings.maxBytes, cost }

          let first: number // number of the first line shown (1-based; negative counts from the end)
          let total: number | undefined
          let window: ForwardResult
          if (!tail) {
            window = yield* readForward(source, { start, skip: offset, limit, countAll: countable, ...forward })
            total = window.total
            first = offset + 1
            if (window.lines.length === 0 && total !== undefined && offset > 0 && offset >= total) {
              return yield* invalidParam(
                "offset",
                `offset ${offset} is past the end of ${shown}, which has ${plural(total, "line")}.`,
                [hint("Read", "high", { path: shown, offset: -Math.min(settings.defaultLimit, Math.max(total, 1)) })],
              )
            }
          } else {
            // The window is found from the end; the total is a newline count when that is cheap.
            const found = yield* findTailStart(source, start, -offset)
            window = yield* readForward(source, { start: found.position, skip: 0, limit: Math.min(limit, found.found), countAll: false, ...forward })
            total = found.reachedStart ? found.found : countable ? yield* countLines(source, start) : undefined
            first = total !== undefined ? total - found.found + 1 : -found.found
          }

          const lines = window.lines
          const count = lines.length
          const last = first + count - 1
          const hasMore = window.end < bytes
          const hasBefore = first > 1 || first < 0
          const rendered = lines.map(render)
          const cutLines = rendered.filter((r) => r.cut).length
          const content = rendered.map((r, i) => `${String(first + i).padStart(6)}\t${r.text}`).join("\n")

          const lastByte = Buffer.allocUnsafe(1)
          const finalNewline = bytes > start && (yield* source.readAt(bytes - 1, lastByte)) === 1 && lastByte[0] === 10
          const eolSample = Buffer.allocUnsafe(Math.min(bytes - start, SNIFF_BYTES))
          const eolRead = eolSample.length > 0 ? yield* source.readAt(start, eolSample) : 0
          const lineEnding = lineEndingOf(eolSample.subarray(0, eolRead), lines)

          const nextOffset = hasMore ? (first > 0 ? first - 1 + count : first + count) : null
          const prevOffset = hasBefore ? (first > 0 ? Math.max(0, first - 1 - limit) : first - limit) : null
          const windowPartial = hasMore || hasBefore
          const reasons = [
            ...(window.stoppedBy === "bytes" ? ["byte_limit"] : windowPartial ? ["line_limit"] : []),
            ...(cutLines > 0 ? ["line_length"] : []),
          ]
          const truncated = reasons.length > 0
          const wholeFile = !windowPartial && cutLines === 0

          // What the edit tools check staleness against.
          const mtimeMs = Number(stat.mtimeMs)
          let sha256: string | undefined
          if (!windowPartial && size <= settings.countMaxBytes) {
            const hash = createHash("sha256")
            const block = Buffer.allocUnsafe(Math.max(1, Math.min(size, 1 << 20)))
            for (let at = 0; at < size; ) {
              const n = yield* readAt(at, block)
              if (n <= 0) break
              hash.update(n === block.length ? block : block.subarray(0, n))
              at += n
            }
            sha256 = hash.digest("hex")
          }
          yield* ledger.record(opened.real, { mtimeMs, size, ...(sha256 ? { sha256 } : {}) })

          // The status line and notes.
          const range = count === 0 ? "" : first > 0 ? `Lines ${first}-${last}` : `Lines ${first} to ${last}`
          let status: string
          if (count === 0) status = total === 0 ? "Empty file (0 lines)." : `No lines in this range.`
          else if (total !== undefined) status = `${range} of ${total}`
          else if (first > 0) status = `${range} of more than ${last} (total not counted)`
          else status = `${range}, counted from the end (-1 is the last line; total not counted)`
          if (truncated) status += ` (TRUNCATED: ${reasons.join(", ")})`
          const notes: Array<string> = []
          if (sniffed.bomLength > 0 || sniffed.encoding !== "utf-8" || lineEnding === "crlf" || lineEnding === "mixed") {
            const parts = [
              sniffed.encoding === "latin1" ? "not valid UTF-8, shown as Latin-1" : sniffed.encoding,
              ...(sniffed.bomLength > 0 ? ["with a byte-order mark"] : []),
              ...(lineEnding === "crlf" ? ["CRLF line endings (shown without the CR)"] : []),
              ...(lineEnding === "mixed" ? ["mixed CRLF and LF line endings (shown without the CR)"] : []),
            ]
            notes.push(`Format: ${parts.join(", ")}.`)
          }
          if (count > 0 && !hasMore && !finalNewline) notes.push("No newline at end of file.")
          if (asked !== undefined && asked > settings.maxLimit) notes.push(`limit ${asked} is above the maximum of ${settings.maxLimit}; returned at most ${settings.maxLimit} lines.`)
          if (window.stoppedBy === "bytes") notes.push(`Stopped after ${plural(count, "line")} at the ${formatBytes(settings.maxBytes)} output budget.`)
          if (cutLines > 0) notes.push(`${plural(cutLines, "line")} longer than ${settings.maxLineLength} characters ${cutLines === 1 ? "was" : "were"} cut (marked "… [line truncated …]").`)
          if (total === undefined) {
            notes.push(`Total line count not computed: the file is ${formatBytes(size)}, above the ${formatBytes(settings.countMaxBytes)} counting limit.`)
          }

          const hints: Array<RetrievalHint> = []
          if (nextOffset !== null) hints.push(hint("Read", "high", { path: shown, offset: nextOffset, limit }))
          else if (prevOffset !== null) hints.push(hint("Read", "high", { path: shown, offset: prevOffset, limit }))
          if (truncated) hints.push(hint("Grep", "medium", { pattern: "<keyword>", path: shown }))

          const averageLine = count > 0 ? lines.reduce((s, l) => s + l.length + (l.crlf ? 2 : 1), 0) / count : 0
          const estimate = total ?? (averageLine > 0 ? Math.round((bytes - start) / averageLine) : 0)
          const result: ToolResult = {
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
              ...(total === undefined ? { total_lines_estimate: estimate } : {}),
              has_more: hasMore,
              next_offset: nextOffset,
              truncated,
              file_bytes: size,
              encoding: sniffed.encoding,
              bom: sniffed.bomLength > 0,
              line_ending: lineEnding,
              final_newline: finalNewline,
              long_lines_cut: cutLines,
              whole_file: wholeFile,
            },
            stats: { lines_returned: count, file_bytes: size, ...(total !== undefined ? { total_lines: total } : {}) },
            context: { path_resolved: shown },
            hints,
            ...(truncated
              ? {
                  truncation: {
                    reason: reasons.join(","),
                    ...(count > 0 ? { shown_range: { start_line: first, end_line: last } } : {}),
                    total_estimate: estimate,
                  },
                }
              : {}),
          }
          return result
        }),
      ).pipe(Effect.mapError((e) => (e instanceof ToolError || e instanceof WorkspaceError ? e : fromPlatformError(e, shown))))
    })),
})
