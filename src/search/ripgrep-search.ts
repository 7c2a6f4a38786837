import { Clock, Data, Deferred, Effect, Option } from "effect"
import { Path } from "effect/Path"
import { ProcessRunner, type OutputSink } from "../process/process-runner.ts"
import { BulkFs } from "../workspace/bulk-fs.ts"
import { attachContext, type FileResult, type MatchLine, type SearchOutcome, type SearchRequest, type SearchStop, type SearchTarget } from "./search-types.ts"
import { WholeLineDecoder } from "./whole-line-decoder.ts"
import { decodePath } from "../workspace/path-bytes.ts"
import { BINARY_SNIFF_BYTES } from "../workspace/text-sniff.ts"
import { binaryTailWarning } from "./binary-tail.ts"

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
  // In a repository rg reads ignore files as git does: a nested repository's files are not under its parent's
  // .gitignore, nor a repository under a .gitignore above it. Outside one, --no-require-git makes the project's own
  // .gitignore files count, and --no-ignore-parent keeps out those above the searched folder (the caller re-checks
  // what lies between the root and a searched subfolder).
  const ignores = req.insideRepository === true ? [] : ["--no-require-git", "--no-ignore-parent"]
  const args = ["--no-config", "--hidden", ...ignores, "--no-ignore-global", req.caseSensitive ? "--case-sensitive" : "--ignore-case"]
  if (req.crlf === true) args.push("--crlf")
  if (req.mode === "content") {
    args.push("--json")
    if (req.before > 0) args.push("--before-context", String(req.before))
    if (req.after > 0) args.push("--after-context", String(req.after))
  } else {
    args.push("--count", "--null", "--with-filename")
  }
  for (const glob of req.include?.rgGlobs ?? []) args.push("--glob", glob)
  for (const dir of req.ignoredDirs) args.push("--glob", `!${dir.replace(GLOB_META, "\\$&")}/`)
  // Later globs win in rg: these exclusions come after the include whitelist.
  for (const glob of req.hiddenGlobs ?? []) args.push("--glob", glob)
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

/** What both collectors answer. */
interface Collector {
  readonly files: Array<FileResult>
  readonly full: boolean
  readonly filesSearched: number | undefined
  /** Whole lines of rg's output: each ends in a newline, except a last one the output did not end. */
  take(text: string): void
  /** A file cut off mid-way (timeout, limit): what was seen of it counts. */
  flushPartial(): void
}

/** Collects rg's JSON messages into per-file results. */
class JsonCollector implements Collector {
  readonly files: Array<FileResult> = []
  filesSearched: number | undefined
  stored = 0
  full = false
  private path = ""
  private lines: Array<MatchLine> = []
  private known = new Map<number, string>()
  /** Where each kept or known line starts in the file (bytes). */
  private offsets = new Map<number, number>()
  private skipping = false
  /** Files whose search ended at a NUL byte past the first block. */
  readonly notes: Array<string> = []

  constructor(private readonly req: SearchRequest) {}

  take(text: string): void {
    let start = 0
    while (start < text.length && !this.full) {
      let nl = text.indexOf("\n", start)
      if (nl === -1) nl = text.length
      this.line(text.slice(start, nl))
      start = nl + 1
    }
  }

  private line(raw: string): void {
    if (raw.length === 0) return
    // Each message starts with its type: lines that will not be kept are not parsed.
    const isMatch = raw.startsWith('{"type":"match"')
    if (isMatch || raw.startsWith('{"type":"context"')) {
      if (this.skipping) return
      const msg = JSON.parse(raw) as { data: { lines: RgText; line_number: number; absolute_offset: number; submatches?: Array<{ start: number }> } }
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
      this.offsets.set(n, msg.data.absolute_offset)
      if (isMatch && keeping) {
        this.lines.push({ line: n, text, column: charIndex(text, msg.data.submatches?.[0]?.start ?? 0), before: [], after: [] })
        if (++this.stored >= this.req.maxStoredLines) this.full = true
      }
      return
    }
    const msg = JSON.parse(raw) as { type: string; data: Record<string, unknown> }
    if (msg.type === "begin") {
      // A name that is not UTF-8 comes as bytes: kept escaped (path-bytes.ts), so it can be opened and shown quoted.
      const named = msg.data.path as RgText
      this.path = stripDot(typeof named.bytes === "string" ? decodePath(Buffer.from(named.bytes, "base64")) : decodeRg(named))
      this.lines = []
      this.known = new Map()
      this.offsets = new Map()
      this.skipping = false
    } else if (msg.type === "end") {
      const nul = typeof msg.data.binary_offset === "number" ? msg.data.binary_offset : undefined
      // A NUL byte in the first block: a binary file (rg prints nothing of it when it walks; a file named alone it
      // searches whole, and the caller has refused that one already).
      const binary = nul !== undefined && nul < BINARY_SNIFF_BYTES
      const stats = msg.data.stats as { matched_lines?: number } | undefined
      let matched = stats?.matched_lines
      if (nul !== undefined && !binary) {
        // A later NUL: what lies before the line holding it was searched, as rg stops there when it walks (a file
        // named alone rg searches on; those lines are left out here).
        const before = (n: number, text: string) => (this.offsets.get(n) ?? 0) < nul && !text.includes("\0")
        const kept = this.lines.filter((l) => before(l.line, l.text))
        this.stored -= this.lines.length - kept.length
        if (matched !== undefined) matched -= this.lines.length - kept.length
        this.lines = kept
        for (const [n, text] of this.known) if (!before(n, text)) this.known.delete(n)
        if (kept.length > 0) this.notes.push(binaryTailWarning(this.path, nul))
      }
      if (!binary && this.lines.length > 0) {
        const kept = this.lines.slice(0, this.req.keepPerFile)
        attachContext(kept, this.known, this.req.before, this.req.after)
        this.files.push({ path: this.path, matchedLines: matched ?? kept.length, lines: kept })
      } else if (binary) {
        this.stored -= this.lines.length
      }
      this.lines = []
      this.known = new Map()
      this.offsets = new Map()
    } else if (msg.type === "summary") {
      const stats = msg.data.stats as { searches?: number } | undefined
      this.filesSearched = stats?.searches
    }
  }

  flushPartial(): void {
    if (this.lines.length === 0) return
    const kept = this.lines.slice(0, this.req.keepPerFile)
    attachContext(kept, this.known, this.req.before, this.req.after)
    this.files.push({ path: this.path, matchedLines: this.lines.length, lines: kept })
    this.lines = []
  }
}

/** The lines of every file result in the count modes (none are kept). */
const NO_LINES: ReadonlyArray<MatchLine> = []

/**
 * Parses `path\0count\n` records: one pass over each block, no string per
 * line (a search where every file matches has one record per file). A path
 * may hold a line feed of its own (the NUL, never in a name, ends it), so a
 * block of whole lines can end inside a record: its start waits for the next.
 */
class CountCollector implements Collector {
  readonly files: Array<FileResult> = []
  readonly full = false
  readonly filesSearched = undefined
  private pending = ""

  take(block: string): void {
    const text = this.pending === "" ? block : this.pending + block
    this.pending = ""
    // Blocks of whole lines end with a line feed; the output's last piece (a record without one) may not.
    const final = !block.endsWith("\n")
    let start = 0
    while (start < text.length) {
      const nul = text.indexOf("\0", start)
      const found = nul === -1 ? -1 : text.indexOf("\n", nul)
      const nl = found === -1 && final && nul !== -1 ? text.length : found
      if (nl === -1) {
        this.pending = text.slice(start)
        return
      }
      const count = parseCount(text, nul + 1, nl)
      if (count > 0) {
        const path = text.startsWith("./", start) ? text.slice(start + 2, nul) : text.slice(start, nul)
        this.files.push({ path, matchedLines: count, lines: NO_LINES })
      }
      start = nl + 1
    }
  }

  flushPartial(): void {}
}

/** The count in `text[from, to)`: its digits, else whatever `Number` makes of it (NaN and 0 are dropped). */
const parseCount = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) {
      const value = Number(text.slice(from, to))
      return Number.isFinite(value) ? value : 0
    }
    n = n * 10 + d
  }
  return n
}

const STDERR_LIMIT = 64 * 1024
/** How long rg gets to exit after TERM (it exits at once), and to close its output after exiting. */
const KILL_GRACE_MS = 1_000
const DRAIN_MS = 100
/**
 * The files found are stat'ed (grep orders them newest first) in batches of
 * this many while rg is still searching, instead of all of them after it:
 * when every file matches that is one stat per file searched, and anvil
 * would otherwise wait on rg's output with nothing to do.
 */
const STAT_BATCH = 256

/**
 * Searches with the rg at `rgPath`; `env` is the child's whole environment.
 * Every file result carries its modification time (`mtime`).
 */
export const searchWithRipgrep = Effect.fn("searchWithRipgrep")(function* (
  rgPath: string,
  req: SearchRequest,
  target: SearchTarget,
  env: Readonly<Record<string, string>>,
) {
  const runner = yield* ProcessRunner
  const bulk = yield* BulkFs
  const path = yield* Path
  const context = yield* Effect.context<never>()
  const collector: Collector = req.mode === "content" ? new JsonCollector(req) : new CountCollector()
  const now = yield* Clock.currentTimeMillis
  const remaining = Math.max(1, req.deadline - now)
  const enough = Deferred.makeUnsafe<void>()
  const lines = new WholeLineDecoder()
  const errorDecoder = new TextDecoder()
  let stderr = ""
  let sawOutput = false

  // collector.files[0, stamped) have their mtime or are being stat'ed.
  let stamped = 0
  const stampFound = Effect.suspend(() => {
    const batch = collector.files.slice(stamped)
    stamped = collector.files.length
    return Effect.map(bulk.mtimes(batch.map((f) => path.join(target.dir, f.path))), (times) => {
      for (let i = 0; i < batch.length; i++) batch[i]!.mtime = times[i] ?? 0
    })
  })
  // The batch the output is waiting on: a stop (enough lines) does not wait for it, the answer does.
  let stamping: Promise<void> | undefined

  const stdout: OutputSink = {
    write: (chunk) => {
      if (collector.full) return
      sawOutput = true
      collector.take(lines.decode(chunk))
      if (collector.full) {
        Deferred.doneUnsafe(enough, Effect.void)
        return
      }
      if (collector.files.length - stamped < STAT_BATCH) return
      stamping = Effect.runPromiseWith(context)(stampFound)
      return stamping
    },
  }
  const errors: OutputSink = {
    write: (chunk) => {
      if (stderr.length < STDERR_LIMIT) stderr += errorDecoder.decode(chunk, { stream: true })
    },
  }
  const run = runner
    .run({
      file: rgPath,
      args: ripgrepArgs(req, target),
      cwd: target.dir,
      ...(target.dirHandle !== undefined ? { cwdHandle: target.dirHandle } : {}),
      env,
      timeoutMs: remaining,
      killGraceMs: KILL_GRACE_MS,
      drainMs: DRAIN_MS,
      stdout,
      stderr: errors,
    })
    .pipe(Effect.mapError((e) => new RipgrepUnavailable({ message: e.message })))
  // Enough lines kept: rg is ended (interrupting the run ends its process group).
  const ran = yield* Effect.raceFirst(run.pipe(Effect.map(Option.some)), Deferred.await(enough).pipe(Effect.as(Option.none())))
  // The last line, when rg's output did not end in a newline (not after a kill: it may be cut).
  if (Option.isSome(ran) && !ran.value.timedOut && !collector.full) collector.take(lines.end())

  let stoppedBy: SearchStop | undefined
  if (collector.full) stoppedBy = "collect_limit"
  else if (Option.isSome(ran) && ran.value.timedOut) stoppedBy = "timeout"
  // A killed rg has no exit code worth reading (null when a signal ended it).
  const code = stoppedBy === undefined && Option.isSome(ran) ? (ran.value.exitCode ?? -1) : undefined
  if (stoppedBy !== undefined) collector.flushPartial()
  if (stamping !== undefined) yield* Effect.promise(() => stamping!)
  yield* stampFound

  if (code === 2 && !sawOutput && collector.files.length === 0) {
    const message = stderr.trim()
    const errorLine = message.split("\n").find((l) => l.startsWith("error:"))
    if (/regex|literal .* is not allowed|pattern/i.test(message)) {
      const reason = errorLine ? errorLine.slice("error:".length).trim() : message.replace(/^rg: /, "").split("\n")[0]!
      // rg's advice names its own flags (--pcre2, --multiline), which the grep tool does not take: left out.
      const explained = message.replace(/^rg: /gm, "").replace(/\n+Consider enabling [\s\S]*?(?=\n\n|$)/g, "").trim()
      return yield* new RipgrepPatternError({ message: explained, reason })
    }
    if (message !== "" && !/No such file|Permission denied|os error/i.test(message)) {
      return yield* new RipgrepFailed({ message: `ripgrep failed: ${message.slice(0, 2000)}` })
    }
  }
  if (code !== undefined && code !== 0 && code !== 1 && code !== 2) {
    return yield* new RipgrepFailed({ message: `ripgrep exited with code ${code}: ${stderr.trim().slice(0, 2000)}` })
  }
  const problems = stderr
    .split("\n")
    .map((l) => l.replace(/^rg: /, "").trim())
    .filter((l) => l !== "")
  const warnings = [...(collector instanceof JsonCollector ? collector.notes : []), ...problems].slice(0, 20)
  // "./locked: Permission denied (os error 13)": a file or folder rg could not read.
  const failed = problems.flatMap((l) => {
    const m = /^(.+?): [^:]*\(os error \d+\)$/.exec(l)
    return m ? [m[1]!.replace(/^\.\//, "")] : []
  })
  const outcome: SearchOutcome = {
    files: collector.files,
    warnings,
    failed,
    ...(stoppedBy ? { stoppedBy } : {}),
    ...(collector.filesSearched !== undefined ? { filesSearched: collector.filesSearched } : {}),
  }
  return outcome
})
