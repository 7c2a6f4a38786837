import { Effect } from "effect"
import { isPlatformError, type PlatformError } from "effect/PlatformError"
import { readSync } from "node:fs"
import { FileLedger } from "../workspace/file-ledger.ts"
import { fileTypeName } from "../workspace/checked-fs.ts"
import { openCheckedScoped } from "../workspace/checked-open.ts"
import { refuseEmptyPath, refuseFolderSyntax } from "../workspace/file-path.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { lineSlice } from "./line-slice.ts"
import { type ByteSource, findTailStart, type ForwardResult, type LineBreaks, memorySource, type RawLine, readForward } from "../workspace/line-window.ts"
import { BINARY_SNIFF_BYTES, decodeBytes, decodeUtf16, SNIFF_BYTES, sniffText, type TextEncodingName } from "../workspace/text-sniff.ts"
import { Workspace } from "../workspace/workspace.ts"
import { missingPath } from "./missing-path.ts"
import { BinaryFile, IsAFolder, LinesPastEnd, NotARegularFile, Utf16TooLarge } from "./files-error.ts"

/** A byte count as people read it: 512 B, 1.5 KB, 3.2 MB. */
export const formatBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(1)} GB`

/** A window of a text file to read. */
export interface ReadRequest {
  /** The file, as given (relative to the working directory). */
  readonly path: string
  /** Lines to skip (negative: counted from the end). */
  readonly offset: number
  /** Lines asked for, when the caller said. */
  readonly limit: number | undefined
  readonly defaultLimit: number
  readonly maxLimit: number
  /** Characters to skip at the start of each line (to read a cut line's rest). */
  readonly column?: number | undefined
  /** Longer lines are cut (in characters). */
  readonly maxLineLength: number
  /** Files up to this size have their lines counted (and are hashed when read whole). */
  readonly countMaxBytes: number
  /** Larger UTF-16 files are refused. */
  readonly utf16MaxBytes: number
  /** Bytes of numbered lines returned at most. */
  readonly maxBytes: number
}

/** The lines read and what is known about the file. */
export interface TextWindow {
  /** The file, as results name paths. */
  readonly shown: string
  /** The lines, numbered (`     7\ttext`), joined by line breaks. */
  readonly content: string
  /** Number of the first line shown (1-based; negative counts from the end when the total is unknown). */
  readonly first: number
  readonly count: number
  /** Lines in the file, when counted. */
  readonly total: number | undefined
  /** The number of lines the window was sized for. */
  readonly limit: number
  readonly hasMore: boolean
  readonly hasBefore: boolean
  /** The offset of the next window, when there is more. */
  readonly nextOffset: number | null
  /** The offset of the window before, when there is one. */
  readonly prevOffset: number | null
  /** The byte budget ended the window. */
  readonly stoppedByBytes: boolean
  /** Lines cut at the length limit. */
  readonly cutLines: number
  readonly fileBytes: number
  readonly encoding: string
  readonly bom: boolean
  /** From the lines read and a scan of the file (`unknown`: no line break in the part scanned, the rest not scanned). */
  readonly lineEnding: "lf" | "crlf" | "mixed" | "cr" | "none" | "unknown"
  /** Lines cut at the length limit, with what their rest is. */
  readonly cut: ReadonlyArray<CutLine>
  /** The column asked for (characters skipped in each line). */
  readonly column: number
  /** Lines that end before the column (shown empty), with their length in characters when counted. */
  readonly shortOfColumn: ReadonlyArray<{ readonly line: number; readonly chars: number | undefined }>
  readonly finalNewline: boolean
  /** The total, or an estimate from the average line length when not counted. */
  readonly estimate: number
}

/** The index in `text` after its first `n` characters (code points: a surrogate pair is never split). */
const afterCodePoints = (text: string, n: number): number => {
  let i = 0
  for (let k = 0; k < n && i < text.length; k++) {
    const code = text.charCodeAt(i)
    i += code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1
  }
  return i
}

/** A line's first `maxChars` characters (from its kept head), and whether more follow. */
const renderHead = (line: RawLine, encoding: TextEncodingName, maxChars: number): { readonly text: string; readonly cut: boolean } => {
  const text = decodeBytes(line.head, encoding)
  const keep = afterCodePoints(text, maxChars)
  return { text: text.slice(0, keep), cut: keep < text.length || line.head.length < line.length }
}

/** A cut line's marker: which characters are shown, of how many, and the column its rest starts at. */
const cutMarker = (from: number, shown: number, total: number | undefined, bytes: number): string =>
  `… [line cut: characters ${from + 1}-${from + shown} of ${total ?? `more (${bytes} bytes)`}; the rest from column=${from + shown}]`

/** A line cut at the length limit: its number and what of it was shown. */
export interface CutLine {
  /** Line number as shown. */
  readonly line: number
  /** Characters skipped before the shown ones (the column asked for). */
  readonly from: number
  /** Characters shown. */
  readonly shown: number
  /** Characters in the line, when counted. */
  readonly totalChars: number | undefined
  /** Bytes in the line. */
  readonly bytes: number
}

/** The line-ending style seen in a sample (names as the edit tools use them). */
const endingsIn = (view: Uint8Array, before: number): { crlf: number; lf: number } => {
  let crlf = 0
  let lf = 0
  for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) {
    if ((i > 0 ? view[i - 1] : before) === 13) crlf++
    else lf++
  }
  return { crlf, lf }
}

/**
 * The file's line-ending style: from the breaks the line count already saw
 * when it covered the whole file, else scanned in blocks from `start` up to
 * `maxBytes` (stopping once both styles were seen; with `firstOnly`, a file
 * too large to scan, once any break was seen), the window's own lines added:
 * `cr` when no line feed but a carriage return was seen (classic Mac OS:
 * still one line, as ripgrep reads it), `none` only when the scan reached the
 * end without either, `unknown` when it stopped first without one.
 */
const lineEndingOf = <E>(
  source: ByteSource<E>,
  start: number,
  maxBytes: number,
  firstOnly: boolean,
  lines: ReadonlyArray<RawLine>,
  counted: LineBreaks | undefined,
) =>
  Effect.gen(function* () {
    // A file with no line feed is scanned for carriage returns: classic Mac OS line ends.
    if (counted && counted.crlf + counted.lf > 0) return counted.crlf > 0 && counted.lf > 0 ? "mixed" : counted.crlf > 0 ? "crlf" : ("lf" as TextWindow["lineEnding"])
    const end = Math.min(source.size, start + Math.max(maxBytes, SNIFF_BYTES))
    const block = Buffer.allocUnsafe(Math.max(1, Math.min(1 << 20, end - start)))
    let crlf = 0
    let lf = 0
    for (const l of lines) {
      // A last line's CR with no line feed after it is no break (a classic Mac OS file's last CR).
      if (l.crlf) {
        if (l.start + l.length + 1 < source.size) crlf++
      } else if (l.start + l.length < source.size) lf++
    }
    let before = -1
    let position = start
    let cr = false
    while (position < end && !(crlf > 0 && lf > 0) && !(firstOnly && position - start >= SNIFF_BYTES && crlf + lf > 0)) {
      const n = yield* source.readAt(position, end - position < block.length ? block.subarray(0, end - position) : block)
      if (n <= 0) break
      const seen = endingsIn(block.subarray(0, n), before)
      crlf += seen.crlf
      lf += seen.lf
      if (crlf + lf === 0 && !cr) cr = block.subarray(0, n).includes(13)
      before = block[n - 1]!
      position += n
    }
    const ending: TextWindow["lineEnding"] =
      crlf > 0 && lf > 0 ? "mixed" : crlf > 0 ? "crlf" : lf > 0 ? "lf" : cr ? "cr" : position >= source.size ? "none" : "unknown"
    return ending
  })

/**
 * A window of a text file's lines inside the project, read in blocks (never
 * the whole file unless it is UTF-16): the encoding sniffed, binary files
 * refused, long lines cut, the window bounded by lines and bytes. What was
 * read is recorded in the file ledger, which the edit tools check staleness
 * against (with a hash when the whole file was read).
 */
export const readWindow = (request: ReadRequest) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const ledger = yield* FileLedger
    yield* refuseEmptyPath(request.path)
    const resolved = yield* ws.resolve(request.path)
    const shown = resolved.display

    const notFound = (why: string) => missingPath("file", resolved.absolute, shown, why)

    if (!resolved.exists) return yield* notFound("")
    return yield* Effect.scoped(
      Effect.gen(function* () {
        // The file is opened first and its real place checked: a link swapped in after resolve() leads nowhere.
        const opened = yield* openCheckedScoped(ws.contains, resolved.absolute, request.path, shown)
        if (opened === undefined) return yield* notFound(" (a symbolic link whose target does not exist)")
        const stat = opened.stat
        if (stat.isDirectory()) return yield* new IsAFolder({ shown })
        yield* refuseFolderSyntax(request.path, shown)
        if (!stat.isFile()) return yield* new NotARegularFile({ shown, type: fileTypeName(stat) })
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

        const sample = Buffer.allocUnsafe(Math.min(size, BINARY_SNIFF_BYTES))
        const sampled = sample.length > 0 ? yield* readAt(0, sample) : 0
        const sniffed = sniffText(sample.subarray(0, sampled), size <= BINARY_SNIFF_BYTES)
        if (sniffed.binary) return yield* new BinaryFile({ shown, size })
        // A file the sample holds whole (most source files) is read from memory from here on: the window, its last
        // byte, the line endings and the hash take the bytes read once, not a read of the file each.
        const onFile: ByteSource<PlatformError> = sampled === size ? memorySource(sample) : { size, readAt }

        // UTF-16 is decoded whole and read as UTF-8; everything else is read in place.
        let source: ByteSource<PlatformError> = onFile
        let start = sniffed.bomLength
        if (sniffed.encoding === "utf-16le" || sniffed.encoding === "utf-16be") {
          if (size > request.utf16MaxBytes) return yield* new Utf16TooLarge({ shown, size, limit: request.utf16MaxBytes })
          const whole = Buffer.allocUnsafe(size)
          yield* onFile.readAt(0, whole)
          source = memorySource(Buffer.from(decodeUtf16(whole.subarray(2), sniffed.encoding), "utf8"))
          start = 0
        }
        const decodeAs: TextEncodingName = sniffed.encoding === "latin1" ? "latin1" : "utf-8"
        const bytes = source.size
        const countable = size <= request.countMaxBytes

        // The window.
        const asked = request.limit
        const offset = request.offset
        const tail = offset < 0
        const limit = Math.min(asked ?? (tail ? -offset : request.defaultLimit), request.maxLimit)
        // With a column asked for and one line, that line's rest comes in one budget-sized piece.
        const column = Math.max(0, request.column ?? 0)
        const wide = request.column !== undefined && limit === 1
        const take = wide ? Number.POSITIVE_INFINITY : request.maxLineLength
        const sliceBytes = wide ? request.maxBytes : request.maxLineLength * 4 + 4
        // A line costs what it adds to the content: its number, tab, shown text and line break.
        const heads = new Map<RawLine, ReturnType<typeof renderHead>>()
        const render = (line: RawLine) => {
          const known = heads.get(line)
          if (known) return known
          const r = renderHead(line, decodeAs, request.maxLineLength)
          heads.set(line, r)
          return r
        }
        const cost = (line: RawLine) =>
          8 + (column === 0 ? Buffer.byteLength(render(line).text) : Math.min(Math.max(0, line.length - column), sliceBytes))
        const forward = { maxLineBytes: column === 0 ? request.maxLineLength * 4 + 4 : 0, maxWindowBytes: request.maxBytes, cost }

        let first: number // number of the first line shown (1-based; negative counts from the end)
        let total: number | undefined
        // The whole file's line breaks, when a scan from the first line reached the end.
        let breaks: LineBreaks | undefined
        let window: ForwardResult
        if (!tail) {
          window = yield* readForward(source, { start, skip: offset, limit, countAll: countable, ...forward })
          total = window.total
          breaks = window.breaks
          first = offset + 1
          if (window.lines.length === 0 && total !== undefined && offset > 0 && offset >= total) {
            return yield* new LinesPastEnd({ shown, offset, total, lastWindow: -Math.min(request.defaultLimit, Math.max(total, 1)) })
          }
        } else {
          // The window is found from the end; the total is a newline count when that is cheap.
          const found = yield* findTailStart(source, start, -offset)
          window = yield* readForward(source, { start: found.position, skip: 0, limit: Math.min(limit, found.found), countAll: false, ...forward })
          const counted = !found.reachedStart && countable
            ? yield* readForward(source, { start, skip: 0, limit: 0, maxLineBytes: 0, countAll: true })
            : undefined
          total = found.reachedStart ? found.found : counted?.total
          breaks = found.reachedStart && found.position === start ? window.breaks : counted?.breaks
          first = total !== undefined ? total - found.found + 1 : -found.found
        }

        const lines = window.lines
        const count = lines.length
        const hasMore = window.end < bytes
        const hasBefore = first > 1 || first < 0
        // Cut lines (and every line when a column is asked for) are sliced from the file, their characters counted.
        let countBudget = request.countMaxBytes
        const cut: Array<CutLine> = []
        const shortOfColumn: Array<{ line: number; chars: number | undefined }> = []
        const texts: Array<string> = []
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i]!
          if (column === 0 && !render(line).cut) {
            texts.push(render(line).text)
            continue
          }
          const slice = yield* lineSlice(source, {
            start: line.start,
            length: line.length,
            encoding: decodeAs,
            skip: column,
            take,
            maxBytes: sliceBytes,
            countBytes: countBudget,
          })
          countBudget -= line.length
          if (column > 0 && slice.chars === 0 && (slice.totalChars ?? 0) <= column) shortOfColumn.push({ line: first + i, chars: slice.totalChars })
          if (!slice.more) {
            texts.push(slice.text)
            continue
          }
          cut.push({ line: first + i, from: column, shown: slice.chars, totalChars: slice.totalChars, bytes: line.length })
          texts.push(slice.text + cutMarker(column, slice.chars, slice.totalChars, line.length))
        }
        const cutLines = cut.length
        const content = texts.map((t, i) => `${String(first + i).padStart(6)}\t${t}`).join("\n")

        const lastByte = Buffer.allocUnsafe(1)
        const finalNewline = bytes > start && (yield* source.readAt(bytes - 1, lastByte)) === 1 && lastByte[0] === 10
        const lineEnding = yield* lineEndingOf(source, start, request.countMaxBytes, !countable, lines, breaks)
        const windowPartial = hasMore || hasBefore

        // What the edit tools check staleness against (in a session; a ledger that records nothing needs no hash).
        const mtimeMs = Number(stat.mtimeMs)
        let sha256: string | undefined
        if (ledger.enforced && !windowPartial && size <= request.countMaxBytes) {
          // Bun's own hasher: node:crypto would add its module load to every read.
          const hash = new Bun.CryptoHasher("sha256")
          const block = Buffer.allocUnsafe(Math.max(1, Math.min(size, 1 << 20)))
          for (let at = 0; at < size; ) {
            const n = yield* onFile.readAt(at, block)
            if (n <= 0) break
            hash.update(n === block.length ? block : block.subarray(0, n))
            at += n
          }
          sha256 = hash.digest("hex")
        }
        yield* ledger.record(opened.real, { mtimeMs, size, ...(sha256 ? { sha256 } : {}) })

        const averageLine = count > 0 ? lines.reduce((s, l) => s + l.length + (l.crlf ? 2 : 1), 0) / count : 0
        const result: TextWindow = {
          shown,
          content,
          first,
          count,
          total,
          limit,
          hasMore,
          hasBefore,
          nextOffset: hasMore ? (first > 0 ? first - 1 + count : first + count) : null,
          prevOffset: hasBefore ? (first > 0 ? Math.max(0, first - 1 - limit) : first - limit) : null,
          stoppedByBytes: window.stoppedBy === "bytes",
          cutLines,
          fileBytes: size,
          encoding: sniffed.encoding,
          bom: sniffed.bomLength > 0,
          lineEnding,
          finalNewline,
          cut,
          column,
          shortOfColumn,
          estimate: total ?? (averageLine > 0 ? Math.round((bytes - start) / averageLine) : 0),
        }
        return result
      }),
    ).pipe(Effect.mapError((e) => (isPlatformError(e) ? fromPlatformError(e, shown) : e)))
  })
