import { Clock, Data, Effect, Stream } from "effect"
import { Path } from "effect/Path"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { walk } from "../workspace/walk.ts"
import type { GlobState } from "./glob-pattern.ts"
import { RegexSyntaxError, translateRustRegex } from "./rust-regex.ts"
import { BINARY_SNIFF_BYTES } from "../workspace/text-sniff.ts"
import { binaryTailWarning } from "./binary-tail.ts"
import { decodeTextKeeping, incompleteUtf8Tail, replacingEscapes, resolveKeeping, showPath } from "../workspace/path-bytes.ts"
import { closeSync, readSync } from "node:fs"
import { openStillAt } from "../workspace/checked-fs.ts"
import { includeAccepts, type FileResult, type LineText, type MatchLine, type SearchOutcome, type SearchRequest, type SearchStop, type SearchTarget } from "./search-types.ts"

/**
 * The in-process search used when no ripgrep can run: the same walk as glob
 * (hidden files searched, `.git` never, ignore files and the default list
 * honoured, symbolic links not followed), ripgrep's pattern syntax
 * translated to a JavaScript RegExp, ripgrep's file handling (UTF-8 and
 * UTF-16 byte-order marks, binary files — a NUL byte early — skipped, a later NUL byte ends the search of a file), matched
 * line by line. It answers what ripgrep answers, only slower.
 */

/** The pattern is invalid (or cannot be run faithfully in-process). */
export class FallbackPatternError extends Data.TaggedError("FallbackPatternError")<{
  readonly message: string
  readonly unsupported: boolean
}> {}

/** Files read per batch (the deadline is checked between batches). */
const BATCH = 128

/** Text of a whole file as ripgrep would search it, or undefined for a binary file (a NUL byte anywhere). */
export const decodeForSearch = (bytes: Uint8Array): string | undefined => {
  const scanner = new Decoder()
  const text = scanner.decode(bytes, false)
  const rest = text === undefined || scanner.stoppedAt !== undefined ? undefined : scanner.decode(new Uint8Array(0), true)
  return text === undefined || rest === undefined ? undefined : text + rest
}

const CHUNK_BYTES = 256 * 1024
const BINARY = Symbol("binary")
const STOPPED = Symbol("stopped")

/**
 * Bytes to text as ripgrep reads them: a UTF-16 byte-order mark selects
 * UTF-16, a UTF-8 one is dropped, anything else is UTF-8 (a byte that is not
 * UTF-8 is kept escaped, U+DC80–U+DCFF as in names, which the translated
 * patterns match only where ripgrep matches the byte; results show U+FFFD
 * there, as ripgrep's do). A NUL byte (U+0000 in UTF-16) in the first
 * {@link BINARY_SNIFF_BYTES} makes the file binary (undefined); a later one
 * ends the text just before it (`stoppedAt` tells where), as ripgrep stops
 * searching there.
 */
class Decoder {
  private decoder: TextDecoder | undefined
  private started = false
  private utf16 = false
  /** UTF-8: the start of a sequence the next piece completes. */
  private carry: Uint8Array | undefined
  /** Bytes of the file taken so far (its byte-order mark included). */
  private at = 0
  /** Where a NUL byte past the first block ended the text. */
  stoppedAt: number | undefined

  decode(bytes: Uint8Array, final: boolean): string | undefined {
    if (this.stoppedAt !== undefined) return ""
    const start = this.at
    this.at += bytes.length
    let skipped = 0
    if (!this.started) {
      this.started = true
      if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
        this.decoder = new TextDecoder("utf-16le")
        this.utf16 = true
        skipped = 2
      } else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
        this.decoder = new TextDecoder("utf-16be")
        this.utf16 = true
        skipped = 2
      } else if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        skipped = 3
      }
      bytes = bytes.subarray(skipped)
    }
    if (!this.utf16) {
      const nul = bytes.indexOf(0)
      if (nul === -1) return this.utf8(bytes, final)
      return this.nulAt(start + skipped + nul, this.utf8(bytes.subarray(0, nul), true))
    }
    const text = this.decoder!.decode(bytes, { stream: !final })
    const nul = text.indexOf("\0")
    // Each UTF-16 code unit is two bytes: the offset is exact but for a byte carried over from the last piece.
    return nul === -1 ? text : this.nulAt(start + skipped + 2 * nul, text.slice(0, nul))
  }

  private utf8(bytes: Uint8Array, final: boolean): string {
    const all = this.carry === undefined ? bytes : Buffer.concat([this.carry, bytes])
    const keep = final ? 0 : incompleteUtf8Tail(all)
    this.carry = keep > 0 ? all.slice(all.length - keep) : undefined
    return decodeTextKeeping(keep > 0 ? all.subarray(0, all.length - keep) : all)
  }

  private nulAt(offset: number, before: string): string | undefined {
    if (offset < BINARY_SNIFF_BYTES) return undefined
    this.stoppedAt = offset
    return before
  }
}

/**
 * Matches a file's lines as they are read, keeping the first matching lines
 * (with their context) and counting the rest. Lines end at `\n`; a `\r`
 * before it stays part of the line for matching (the regex, translated for
 * ripgrep's --crlf when the search asks for it, treats it as a line end) and
 * is dropped from what is shown.
 */
class LineScanner {
  matched = 0
  readonly kept: Array<MatchLine> = []
  private readonly decoder = new Decoder()
  private carry = ""
  private lineNo = 0
  /** The last `before` lines. */
  private readonly recent: Array<LineText> = []
  /** Kept matches still collecting after-context. */
  private open: Array<{ readonly match: MatchLine; left: number }> = []

  constructor(
    private readonly regex: LineRegexes,
    private readonly req: SearchRequest,
    private readonly store: () => boolean,
  ) {}

  /** Where a NUL byte past the first block stopped the search (the lines before it were searched). */
  get stoppedAt(): number | undefined {
    return this.decoder.stoppedAt
  }

  /** BINARY when the file turned out to be binary, STOPPED when a later NUL byte ended its text, else true. */
  feedBytes(bytes: Uint8Array): true | typeof BINARY | typeof STOPPED {
    const text = this.decoder.decode(bytes, false)
    if (text === undefined) return BINARY
    this.feedText(text)
    return this.decoder.stoppedAt === undefined ? true : STOPPED
  }

  end(): void {
    // The line holding a NUL byte is not searched, nor anything after it.
    const rest = this.decoder.stoppedAt === undefined ? (this.decoder.decode(new Uint8Array(0), true) ?? "") : ""
    const last = this.decoder.stoppedAt === undefined ? this.carry + rest : ""
    this.carry = ""
    if (last !== "") this.lineAt(last, true)
  }

  private feedText(text: string): void {
    const all = this.carry + text
    const cut = all.lastIndexOf("\n")
    if (cut === -1) {
      this.carry = all
      return
    }
    this.carry = all.slice(cut + 1)
    const complete = all.slice(0, cut)
    const context = this.req.before > 0 || this.req.after > 0
    // Most text holds no match: one test over the block instead of one per line.
    if (!context && !this.regex.whole.test(complete)) {
      let n = 1
      for (let i = complete.indexOf("\n"); i !== -1; i = complete.indexOf("\n", i + 1)) n++
      this.lineNo += n
      return
    }
    let start = 0
    for (;;) {
      const nl = complete.indexOf("\n", start)
      this.lineAt(nl === -1 ? complete.slice(start) : complete.slice(start, nl))
      if (nl === -1) break
      start = nl + 1
    }
  }

  private lineAt(line: string, unterminated = false): void {
    const n = ++this.lineNo
    const m = (unterminated ? this.regex.unterminated : this.regex.line).exec(line)
    // Escaped bytes are shown as U+FFFD, as ripgrep's results show them.
    const shown = replacingEscapes(!unterminated && line.endsWith("\r") ? line.slice(0, -1) : line)
    // Context after kept matches (a later match line is context too, as ripgrep shows it).
    if (this.open.length > 0) {
      for (const o of this.open) {
        o.match.after = [...o.match.after, { line: n, text: shown }]
        o.left--
      }
      this.open = this.open.filter((o) => o.left > 0)
    }
    if (m !== null) {
      this.matched++
      if (this.req.mode === "content" && this.kept.length < this.req.keepPerFile && this.store()) {
        const match: MatchLine = { line: n, text: shown, column: m.index, before: this.recent.slice(), after: [] }
        this.kept.push(match)
        if (this.req.after > 0) this.open.push({ match, left: this.req.after })
      }
    }
    this.remember(n, shown)
  }

  private remember(line: number, text: string): void {
    if (this.req.before === 0) return
    this.recent.push({ line, text })
    if (this.recent.length > this.req.before) this.recent.shift()
  }
}

/** The regexes of one search: for a line, for a block of whole lines (a quick test), and for a last line without `\n`. */
interface LineRegexes {
  readonly line: RegExp
  readonly whole: RegExp
  /** Differs from `line` only in `(?R)` mode (CRLF lines), where a `\r` ending the file is no half of a CRLF. */
  readonly unterminated: RegExp
}

/** An open file's bytes a block at a time; the descriptor is closed at the end. */
async function* chunksOf(fd: number): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const block = new Uint8Array(CHUNK_BYTES)
      const n = readSync(fd, block, 0, CHUNK_BYTES, null)
      if (n === 0) return
      yield block.subarray(0, n)
    }
  } finally {
    closeSync(fd)
  }
}

/** Compiles a Rust-syntax pattern for the in-process search (`crlf`: as ripgrep's `--crlf` reads it). */
export const compileSearchPattern = (pattern: string, caseSensitive: boolean, crlf = false) =>
  Effect.try({
    try: (): LineRegexes => {
      const t = translateRustRegex(pattern, { caseInsensitive: !caseSensitive, crlf })
      const last = translateRustRegex(pattern, { caseInsensitive: !caseSensitive, crlf, unterminated: true })
      return { line: new RegExp(t.source, t.flags), whole: new RegExp(t.source, `${t.flags}m`), unterminated: new RegExp(last.source, last.flags) }
    },
    catch: (e) =>
      new FallbackPatternError({
        message: e instanceof Error ? e.message : String(e),
        unsupported: e instanceof RegexSyntaxError ? e.unsupported : false,
      }),
  })

export const searchInProcess = Effect.fn("searchInProcess")(function* (req: SearchRequest, target: SearchTarget, root: string) {
  const path = yield* Path
  const bulk = yield* BulkFs
  const regex = yield* compileSearchPattern(req.pattern, req.caseSensitive, req.crlf === true)
  const warnings: Array<string> = []
  const failed: Array<string> = []
  const unreadable = (rel: string) => {
    failed.push(rel)
    warnings.push(`${showPath(rel)}: could not be read`)
  }
  let stoppedBy: SearchStop | undefined
  let walkStop: SearchStop | undefined

  // The files to search, in walk order.
  const candidates: Array<string> = []
  if (target.file !== undefined) {
    candidates.push(target.file)
  } else {
    // The include glob steers the walk; a negated one (`!glob`) only drops files once they are found.
    const include = req.include?.negated ? undefined : req.include?.matcher
    const excluded = req.include?.negated ? req.include : undefined
    const summary = yield* walk<GlobState>({
      root,
      start: target.dir,
      initial: include ? include.start() : [],
      keep: include?.fileNameFilter(),
      includeIgnored: false,
      ignoredDirs: req.ignoredDirs,
      neverEnter: new Set([".git"]),
      ...(req.hidden ? { skipDir: (rel: string) => req.hidden!(rel, true) } : {}),
      maxEntries: req.maxEntries,
      deadline: req.deadline,
      visitor: {
        dir: (state, name) => {
          if (!include) return { descend: state, emit: false, explicit: false }
          const next = include.enter(state, name).state
          return include.canDescend(next) ? { descend: next, emit: false, explicit: false } : undefined
        },
        file: (state, name, kind) => {
          if (kind !== "file") return undefined
          if (include && include.matches(state, name, false) === undefined) return undefined
          return { explicit: false }
        },
      },
      onEntry: (rel) => {
        if ((excluded === undefined || includeAccepts(excluded, rel)) && req.hidden?.(rel, false) !== true) candidates.push(rel)
      },
    })
    // The files found before a breaker stopped the walk are still searched (a timeout stops that too).
    if (summary.stoppedBy) walkStop = summary.stoppedBy === "timeout" ? "timeout" : "max_entries"
    for (const dir of summary.unreadable) unreadable(dir)
  }

  const files: Array<FileResult> = []
  let stored = 0
  let searched = 0
  const store = (): boolean => {
    if (stoppedBy !== undefined) return false
    if (++stored >= req.maxStoredLines) stoppedBy = "collect_limit"
    return true
  }
  const finish = (rel: string, scanner: LineScanner) => {
    searched++
    scanner.end()
    if (scanner.matched === 0) return
    // A search that a later NUL ended: ripgrep shows the lines before it, but counts such a file nowhere (--count).
    if (scanner.stoppedAt !== undefined && req.mode !== "content") return
    files.push({ path: rel, matchedLines: scanner.matched, lines: scanner.kept })
    if (scanner.stoppedAt !== undefined) warnings.push(binaryTailWarning(rel, scanner.stoppedAt))
  }
  /** A large file, read in pieces. */
  const searchLarge = (rel: string) =>
    Effect.gen(function* () {
      const scanner = new LineScanner(regex, req, store)
      const absolute = resolveKeeping(target.dir, rel, path.join)
      // Opened as the small files are (bulk-fs): still the regular file listed, no link followed, never blocking on
      // a FIFO another process put in its place since the walk (a path read would hang there for good).
      const fd = openStillAt(absolute)
      if (fd === undefined) return unreadable(rel)
      const read = yield* Stream.fromAsyncIterable(chunksOf(fd), (e) => e).pipe(
        Stream.runForEachArray((chunks) =>
          Effect.suspend(() => {
            for (const chunk of chunks) {
              const fed = scanner.feedBytes(chunk)
              if (fed !== true) return Effect.fail(fed)
            }
            return Effect.void
          }),
        ),
        Effect.result,
      )
      if (read._tag === "Success" || read.failure === STOPPED) finish(rel, scanner)
      else if (read.failure === BINARY) searched++
      else unreadable(rel)
    })
  // Small files are read a batch at a time; the deadline is checked between batches.
  for (let i = 0; i < candidates.length && stoppedBy === undefined; i += BATCH) {
    if ((yield* Clock.currentTimeMillis) > req.deadline) {
      stoppedBy = "timeout"
      break
    }
    const batch = candidates.slice(i, i + BATCH)
    const contents = yield* bulk.readSmallFiles(
      batch.map((rel) => resolveKeeping(target.dir, rel, path.join)),
      CHUNK_BYTES,
    )
    const large: Array<string> = []
    for (let k = 0; k < batch.length && stoppedBy === undefined; k++) {
      const rel = batch[k]!
      const bytes = contents[k]
      if (bytes === undefined) unreadable(rel)
      else if (bytes === "large") large.push(rel)
      else {
        const scanner = new LineScanner(regex, req, store)
        if (scanner.feedBytes(bytes) !== BINARY) finish(rel, scanner)
        else searched++
      }
    }
    yield* Effect.forEach(large, searchLarge, { concurrency: 2, discard: true })
  }

  const stop = stoppedBy ?? walkStop
  const outcome: SearchOutcome = { files, filesSearched: searched, warnings: warnings.slice(0, 20), failed, ...(stop ? { stoppedBy: stop } : {}) }
  return outcome
})
