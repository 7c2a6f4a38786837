import { Clock, Data, Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { walk } from "../workspace/walk.ts"
import type { GlobState } from "./glob-pattern.ts"
import { RegexSyntaxError, translateRustRegex } from "./rust-regex.ts"
import { attachContext, type FileResult, type MatchLine, type SearchOutcome, type SearchRequest, type SearchStop, type SearchTarget } from "./search-types.ts"

/**
 * The in-process search used when no ripgrep can run: the same walk as glob
 * (hidden files searched, `.git` never, ignore files and the default list
 * honoured, symbolic links not followed), ripgrep's pattern syntax
 * translated to a JavaScript RegExp, ripgrep's file handling (UTF-8 and
 * UTF-16 byte-order marks, binary files — a NUL byte — skipped), matched
 * line by line. It answers what ripgrep answers, only slower.
 */

/** The pattern is invalid (or cannot be run faithfully in-process). */
export class FallbackPatternError extends Data.TaggedError("FallbackPatternError")<{
  readonly message: string
  readonly unsupported: boolean
}> {}

const READ_CONCURRENCY = 8

/** Text of a file as ripgrep would search it, or undefined for a binary file. */
export const decodeForSearch = (bytes: Uint8Array): string | undefined => {
  let text: string
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder("utf-16le").decode(bytes.subarray(2))
  else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder("utf-16be").decode(bytes.subarray(2))
  else {
    if (bytes.indexOf(0) !== -1) return undefined
    const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    return new TextDecoder().decode(bytes.subarray(start))
  }
  return text.includes("\0") ? undefined : text
}

/** Compiles a Rust-syntax pattern for the in-process search. */
export const compileSearchPattern = (pattern: string, caseSensitive: boolean) =>
  Effect.try({
    try: () => {
      const t = translateRustRegex(pattern, { caseInsensitive: !caseSensitive })
      return { line: new RegExp(t.source, t.flags), whole: new RegExp(t.source, `${t.flags}m`) }
    },
    catch: (e) =>
      new FallbackPatternError({
        message: e instanceof Error ? e.message : String(e),
        unsupported: e instanceof RegexSyntaxError ? e.unsupported : false,
      }),
  })

const stripCr = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line)

export const searchInProcess = Effect.fn("searchInProcess")(function* (req: SearchRequest, target: SearchTarget, root: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  const regex = yield* compileSearchPattern(req.pattern, req.caseSensitive)
  const warnings: Array<string> = []
  let stoppedBy: SearchStop | undefined

  // The files to search, in walk order.
  const candidates: Array<string> = []
  if (target.file !== undefined) {
    candidates.push(target.file)
  } else {
    const include = req.include?.matcher
    const summary = yield* walk<GlobState>({
      root,
      start: target.dir,
      initial: include ? include.start() : [],
      includeIgnored: false,
      ignoredDirs: req.ignoredDirs,
      neverEnter: new Set([".git"]),
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
      onEntry: (rel) => candidates.push(rel),
    })
    if (summary.stoppedBy) stoppedBy = summary.stoppedBy === "timeout" ? "timeout" : "max_entries"
    for (const dir of summary.unreadable) warnings.push(`${dir}: could not be read`)
  }

  const files: Array<FileResult> = []
  let stored = 0
  let searched = 0
  const searchOne = (rel: string) =>
    Effect.gen(function* () {
      if (stoppedBy !== undefined) return
      if ((yield* Clock.currentTimeMillis) > req.deadline) {
        stoppedBy = "timeout"
        return
      }
      const bytes = yield* fs.readFile(path.join(target.dir, rel)).pipe(Effect.option)
      if (bytes._tag === "None") {
        warnings.push(`${rel}: could not be read`)
        return
      }
      searched++
      const text = decodeForSearch(bytes.value)
      if (text === undefined || !regex.whole.test(text)) return
      const all = text.split("\n")
      if (all.length > 0 && all[all.length - 1] === "" && text.endsWith("\n")) all.pop()
      const lines: Array<MatchLine> = []
      let matched = 0
      for (let i = 0; i < all.length; i++) {
        const m = regex.line.exec(all[i]!)
        if (m === null) continue
        matched++
        if (req.mode === "content" && lines.length < req.keepPerFile && stoppedBy === undefined) {
          lines.push({ line: i + 1, text: stripCr(all[i]!), column: m.index, before: [], after: [] })
          if (++stored >= req.maxStoredLines) stoppedBy = "collect_limit"
        }
      }
      if (matched === 0) return
      if (req.before > 0 || req.after > 0) {
        const known = new Map<number, string>()
        for (const m of lines) {
          for (let n = Math.max(1, m.line - req.before); n <= Math.min(all.length, m.line + req.after); n++) known.set(n, stripCr(all[n - 1]!))
        }
        attachContext(lines, known, req.before, req.after)
      }
      files.push({ path: rel, matchedLines: matched, lines })
    })
  yield* Effect.forEach(candidates, searchOne, { concurrency: READ_CONCURRENCY, discard: true })

  const outcome: SearchOutcome = { files, filesSearched: searched, warnings: warnings.slice(0, 20), ...(stoppedBy ? { stoppedBy } : {}) }
  return outcome
})
