import { Clock, Data, Duration, Effect, Stream } from "effect"
import * as ChildProcess from "effect/process/ChildProcess"
import { attachContext, type FileResult, type MatchLine, type SearchOutcome, type SearchRequest, type SearchStop, type SearchTarget } from "./search-types.ts"

/**
 * Runs ripgrep for the grep tool: `rg --json` for content (with context
 * lines), `rg --count --null` for file lists and counts; parses its output as
 * it streams, keeps the first matching lines of each file, and stops (killing
 * rg) at the deadline or when enough lines are kept. ripgrep is run with the
 * rules the rest of anvil uses: hidden files searched, `.git` never, ignore
 * files honoured with or without a repository, the user's global gitignore and
 * rg config not read, the default ignore list as `--glob !dir/`.
 */

/** rg could not be started (missing, not executable): the caller falls back to the in-process search. */
export class RipgrepUnavailable extends Data.TaggedError("RipgrepUnavailable")<{ readonly message: string }> {}

/** rg rejected the pattern: `message` is rg's own explanation. */
export class RipgrepPatternError extends Data.TaggedError("RipgrepPatternError")<{
  readonly message: string
  readonly reason: string
}> {}

/** rg failed for another reason before searching anything. */
export class RipgrepFailed extends Data.TaggedError("RipgrepFailed")<{ readonly message: string }> {}

const GLOB_META = /[[\]*?{}\\!]/g

/** The command line (after the rg path) for a request. */
export const ripgrepArgs = (req: SearchRequest, target: SearchTarget): Array<string> => {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", req.caseSensitive ? "--case-sensitive" : "--ignore-case"]
  if (req.mode === "content") {
    args.push("--json")
    if (req.before > 0) args.push("--before-context", String(req.before))
    if (req.after > 0) args.push("--after-context", String(req.after))
  } else {
    args.push("--count", "--null", "--with-filename")
  }
  for (const glob of req.include?.rgGlobs ?? []) args.push("--glob", glob)
  for (const dir of req.ignoredDirs) args.push("--glob", `!${dir.replace(GLOB_META, "\\$&")}/`)
  args.push("--glob", "!.git", "--regexp", req.pattern, "--", target.file ?? ".")
  return args
}

interface RgText {
  readonly text?: string
  readonly bytes?: string
}

const decodeRg = (value: RgText | undefined): string => {
  if (value === undefined) return ""
  if (typeof value.text === "string") return value.text
  if (typeof value.bytes === "string") return new TextDecoder().decode(Buffer.from(value.bytes, "base64"))
  return ""
}

const stripDot = (p: string) => (p.startsWith("./") ? p.slice(2) : p)
const stripEol = (line: string) => (line.endsWith("\r\n") ? line.slice(0, -2) : line.endsWith("\n") ? line.slice(0, -1) : line)

/** Character index of a UTF-8 byte offset in `text`. */
const charIndex = (text: string, byteOffset: number): number => {
  if (byteOffset <= 0) return 0
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    if (bytes >= byteOffset) return i
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return text.length
}

/** Collects rg's JSON messages into per-file results. */
class JsonCollector {
  readonly files: Array<FileResult> = []
  filesSearched: number | undefined
  stored = 0
  full = false
  private path = ""
  private lines: Array<MatchLine> = []
  private known = new Map<number, string>()
  private skipping = false

  constructor(private readonly req: SearchRequest) {}

  line(raw: string): void {
    if (raw.length === 0) return
    // Each message starts with its type: lines that will not be kept are not parsed.
    const isMatch = raw.startsWith('{"type":"match"')
    if (isMatch || raw.startsWith('{"type":"context"')) {
      if (this.skipping) return
      const msg = JSON.parse(raw) as { data: { lines: RgText; line_number: number; submatches?: Array<{ start: number }> } }
      const n = msg.data.line_number
      const keeping = this.lines.length < this.req.keepPerFile
      if (!keeping) {
        // Past the kept matches only the last one's after-context is still wanted.
        const last = this.lines[this.lines.length - 1]!.line
        if (n > last + this.req.after) {
          this.skipping = true
          return
        }
      }
      const text = stripEol(decodeRg(msg.data.lines))
      this.known.set(n, text)
      if (isMatch && keeping) {
        this.lines.push({ line: n, text, column: charIndex(text, msg.data.submatches?.[0]?.start ?? 0), before: [], after: [] })
        if (++this.stored >= this.req.maxStoredLines) this.full = true
      }
      return
    }
    const msg = JSON.parse(raw) as { type: string; data: Record<string, unknown> }
    if (msg.type === "begin") {
      this.path = stripDot(decodeRg(msg.data.path as RgText))
      this.lines = []
      this.known = new Map()
      this.skipping = false
    } else if (msg.type === "end") {
      const binary = msg.data.binary_offset !== null && msg.data.binary_offset !== undefined
      const stats = msg.data.stats as { matched_lines?: number } | undefined
      if (!binary && this.lines.length > 0) {
        const kept = this.lines.slice(0, this.req.keepPerFile)
        attachContext(kept, this.known, this.req.before, this.req.after)
        this.files.push({ path: this.path, matchedLines: stats?.matched_lines ?? kept.length, lines: kept })
      } else if (binary) {
        this.stored -= this.lines.length
      }
      this.lines = []
      this.known = new Map()
    } else if (msg.type === "summary") {
      const stats = msg.data.stats as { searches?: number } | undefined
      this.filesSearched = stats?.searches
    }
  }

  /** A file cut off mid-way (timeout, limit): what was seen of it counts. */
  flushPartial(): void {
    if (this.lines.length === 0) return
    const kept = this.lines.slice(0, this.req.keepPerFile)
    attachContext(kept, this.known, this.req.before, this.req.after)
    this.files.push({ path: this.path, matchedLines: this.lines.length, lines: kept })
    this.lines = []
  }
}

/** Parses `path\0count\n` records. */
class CountCollector {
  readonly files: Array<FileResult> = []
  readonly full = false
  stored = 0
  filesSearched: number | undefined = undefined
  line(raw: string): void {
    const nul = raw.lastIndexOf("\0")
    if (nul === -1) return
    const count = Number(raw.slice(nul + 1))
    if (!Number.isFinite(count) || count <= 0) return
    this.files.push({ path: stripDot(raw.slice(0, nul)), matchedLines: count, lines: [] })
  }
  flushPartial(): void {}
}

const STDERR_LIMIT = 64 * 1024
/** Ends the reading of rg's output once enough lines are kept. */
const FULL = Symbol("full")

/** Searches with the rg at `rgPath`. */
export const searchWithRipgrep = Effect.fn("searchWithRipgrep")(function* (rgPath: string, req: SearchRequest, target: SearchTarget) {
  const collector = req.mode === "content" ? new JsonCollector(req) : new CountCollector()
  const now = yield* Clock.currentTimeMillis
  const remaining = Math.max(1, req.deadline - now)
  let stderr = ""
  let sawOutput = false

  const run = Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* ChildProcess.make(rgPath, ripgrepArgs(req, target), {
        cwd: target.dir,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      }).pipe(Effect.mapError((e) => new RipgrepUnavailable({ message: e.message })))

      const decoder = new TextDecoder()
      const errorDecoder = new TextDecoder()
      let pending = ""
      // Whole arrays of chunks per step: rg writes each file's results separately, so a
      // big result arrives in tens of thousands of small chunks.
      const take = (chunks: ReadonlyArray<Uint8Array>): void => {
        sawOutput = true
        for (const chunk of chunks) {
          const text = pending + decoder.decode(chunk, { stream: true })
          let start = 0
          for (;;) {
            const nl = text.indexOf("\n", start)
            if (nl === -1) break
            collector.line(text.slice(start, nl))
            if (collector.full) {
              pending = ""
              return
            }
            start = nl + 1
          }
          pending = text.slice(start)
        }
      }
      const stdout = Stream.runForEachArray(handle.stdout, (chunks) =>
        Effect.suspend(() => {
          take(chunks)
          return collector.full ? Effect.fail(FULL) : Effect.void
        }),
      ).pipe(
        Effect.catchIf(
          (e): e is typeof FULL => e === FULL,
          () => Effect.void,
        ),
        Effect.andThen(
          Effect.sync(() => {
            if (!collector.full && pending.length > 0) collector.line(pending + decoder.decode())
          }),
        ),
      )
      const errors = Stream.runForEachArray(handle.stderr, (chunks) =>
        Effect.sync(() => {
          for (const chunk of chunks) if (stderr.length < STDERR_LIMIT) stderr += errorDecoder.decode(chunk, { stream: true })
        }),
      )
      yield* Effect.all([stdout, errors], { concurrency: 2, discard: true }).pipe(Effect.orElseSucceed(() => undefined))
      if (collector.full) return undefined
      return yield* handle.exitCode.pipe(Effect.orElseSucceed(() => -1))
    }),
  )

  const exit = yield* run.pipe(Effect.timeoutOption(Duration.millis(remaining)))
  let stoppedBy: SearchStop | undefined
  if (exit._tag === "None") stoppedBy = "timeout"
  else if (collector.full) stoppedBy = "collect_limit"
  const code = exit._tag === "Some" ? exit.value : undefined
  if (stoppedBy !== undefined) collector.flushPartial()

  if (code === 2 && !sawOutput && collector.files.length === 0) {
    const message = stderr.trim()
    const errorLine = message.split("\n").find((l) => l.startsWith("error:"))
    if (/regex|literal .* is not allowed|pattern/i.test(message)) {
      const reason = errorLine ? errorLine.slice("error:".length).trim() : message.replace(/^rg: /, "").split("\n")[0]!
      return yield* new RipgrepPatternError({ message: message.replace(/^rg: /gm, ""), reason })
    }
    if (message !== "" && !/No such file|Permission denied|os error/i.test(message)) {
      return yield* new RipgrepFailed({ message: `ripgrep failed: ${message.slice(0, 2000)}` })
    }
  }
  if (code !== undefined && code !== 0 && code !== 1 && code !== 2) {
    return yield* new RipgrepFailed({ message: `ripgrep exited with code ${code}: ${stderr.trim().slice(0, 2000)}` })
  }
  const warnings = stderr
    .split("\n")
    .map((l) => l.replace(/^rg: /, "").trim())
    .filter((l) => l !== "")
    .slice(0, 20)
  const outcome: SearchOutcome = {
    files: collector.files,
    warnings,
    ...(stoppedBy ? { stoppedBy } : {}),
    ...(collector.filesSearched !== undefined ? { filesSearched: collector.filesSearched } : {}),
  }
  return outcome
})
