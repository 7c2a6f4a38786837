import { Effect } from "effect"
import { existsSync } from "node:fs"
import type { GitError } from "./git-error.ts"
import type { ChangedFile, DiffOptions, DiffResult } from "./changes.ts"
import type { GitCli } from "./git-cli.ts"
import type { HistoryPage, LogCommit } from "./history.ts"
import type { Repository } from "./repository.ts"
import type { HeadState, StatusEntry } from "./status.ts"
import { withOperation } from "./operation.ts"
import { COUNT_ARGS, diffArgs, LOG_UNIT, logArgs, statusArgs, type UntrackedMode } from "./git-command.ts"
import { decodePath } from "../workspace/path-bytes.ts"
import { compareBytes, sortByPath } from "./tree-states.ts"
import type { UpstreamState } from "./upstream.ts"

/**
 * The git tools' answers read from the git command line: porcelain v2 and -z
 * output parsed into the same data the isomorphic-git implementation builds,
 * so both print the same text. git reads every repository it can open
 * (alternates, partial clones, split indexes) and is an order of magnitude
 * faster on large trees.
 */

const decoder = new TextDecoder()

/** NUL-separated fields of `bytes` (paths: bytes that are not UTF-8 kept escaped), decoded (the last empty one dropped). */
const fields = (bytes: Uint8Array, decode: (bytes: Uint8Array) => string = decodePath): Array<string> => {
  const parts = decode(bytes).split("\0")
  if (parts[parts.length - 1] === "") parts.pop()
  return parts
}

const code = (c: string | undefined): string => (c === undefined || c === "." ? " " : c)

/** The answer of `git status`: its entries, where HEAD is and the upstream. */
export interface StatusAnswer {
  readonly entries: ReadonlyArray<StatusEntry>
  readonly head: HeadState
  readonly upstream: UpstreamState | undefined
}

/** What follows the `n`th space of `line` (the path of a porcelain v2 record, which may hold spaces itself). */
const afterSpaces = (line: string, n: number): string => {
  let at = -1
  for (let k = 0; k < n; k++) {
    at = line.indexOf(" ", at + 1)
    if (at === -1) return ""
  }
  return line.slice(at + 1)
}

/** Parses `git status --porcelain=v2 -z --branch`. */
export const parseStatusV2 = (bytes: Uint8Array, merging: boolean): StatusAnswer => {
  const parts = fields(bytes)
  const tracked: Array<StatusEntry> = []
  const untracked: Array<StatusEntry> = []
  let branch: string | undefined
  let commit: string | undefined
  let upstreamName: string | undefined
  let ab: { ahead: number; behind: number } | undefined
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!
    const kind = line.charCodeAt(0)
    if (kind === 0x3f /* ? */) {
      untracked.push({ path: line.slice(2), index: "?", worktree: "?" })
    } else if (kind === 0x31 /* 1 */ || kind === 0x75 /* u */) {
      // "1 XY sub mH mI mW hH hI path" has 8 fields before the path; "u" has 10.
      const entry = { path: afterSpaces(line, kind === 0x31 ? 8 : 10), index: code(line[2]), worktree: code(line[3]) }
      // sub is "S<c><m><u>" for a submodule: C new commits, M modified content, U untracked content ("." when not).
      const sub = line.slice(5, 9)
      tracked.push(
        kind === 0x31 && sub[0] === "S" && sub !== "S..." && entry.worktree !== " "
          ? { ...entry, submodule: { new_commits: sub[1] === "C", modified_content: sub[2] === "M", untracked_content: sub[3] === "U" } }
          : entry,
      )
    } else if (kind === 0x32 /* 2 */) {
      const origPath = parts[++i] ?? ""
      tracked.push({ path: afterSpaces(line, 9), index: code(line[2]), worktree: code(line[3]), orig_path: origPath })
    } else if (line.startsWith("# ")) {
      const [, key, ...rest] = line.split(" ")
      const value = rest.join(" ")
      if (key === "branch.oid") commit = value === "(initial)" ? undefined : value
      else if (key === "branch.head") branch = value === "(detached)" ? undefined : value
      else if (key === "branch.upstream") upstreamName = value
      else if (key === "branch.ab") {
        const m = /^\+(\d+) -(\d+)$/.exec(value)
        if (m) ab = { ahead: Number(m[1]), behind: Number(m[2]) }
      }
    }
  }
  sortByPath(tracked, (e) => e.path)
  sortByPath(untracked, (e) => e.path)
  const upstream =
    upstreamName === undefined ? undefined : ab ? { name: upstreamName, ...ab, exists: true } : { name: upstreamName, ahead: 0, behind: 0, exists: false }
  return { entries: tracked.length === 0 ? untracked : untracked.length === 0 ? tracked : tracked.concat(untracked), head: { branch, commit, merging }, upstream }
}

/** `git status` through the git command line. */
export const cliStatus = (repo: Repository, cli: GitCli, mode: UntrackedMode = "normal"): Effect.Effect<StatusAnswer, GitError> =>
  cli
    .run(repo.dir, statusArgs(mode))
    .pipe(
      Effect.map((out) => {
        const answer = parseStatusV2(out.stdout, existsSync(`${repo.gitdir}/MERGE_HEAD`))
        return { ...answer, head: withOperation(repo, answer.head) }
      }),
    )

/** One record of `git diff --raw -z`. */
interface RawChange {
  readonly status: string
  readonly oldMode: string
  readonly newMode: string
  readonly path: string
  readonly oldPath?: string
}

const isLinkMode = (mode: string) => mode.startsWith("12")
const GITLINK_MODE = "160000"

/**
 * Where the raw records at the start of `git diff --raw -z -p` end: each is a header (":…", its last word the
 * status) and one path, or two for a rename or copy, every field ended by a NUL. Walked on the bytes, with
 * no decoding.
 */
const rawEnd = (bytes: Uint8Array): number => {
  let pos = 0
  const skipField = () => {
    const end = bytes.indexOf(0, pos)
    pos = end === -1 ? bytes.length : end + 1
  }
  while (pos < bytes.length && bytes[pos] === 0x3a /* ':' */) {
    const combined = bytes[pos + 1] === 0x3a
    const headerEnd = bytes.indexOf(0, pos)
    const stop = headerEnd === -1 ? bytes.length : headerEnd
    const status = bytes[bytes.lastIndexOf(0x20, stop) + 1]
    pos = stop + 1
    skipField()
    if (!combined && (status === 0x52 /* R */ || status === 0x43 /* C */)) skipField()
  }
  return Math.min(pos, bytes.length)
}

/**
 * Splits `git diff --raw -z -p` into its raw records and the patch text that
 * follows them. Paths in the records keep bytes that are not UTF-8 escaped
 * (see path-bytes.ts); the patch (whose headers git quotes) is decoded as
 * text, as the built-in diff decodes file contents. The records are decoded
 * at once and cut at their NULs: one decode, not one per field.
 */
export const splitRawPatch = (bytes: Uint8Array): { raw: Array<RawChange>; patch: string } => {
  const raw: Array<RawChange> = []
  const end = rawEnd(bytes)
  const parts = end === 0 ? [] : decodePath(bytes.subarray(0, end)).split("\0")
  for (let i = 0; i < parts.length && parts[i]!.startsWith(":"); ) {
    const header = parts[i++]!
    // "::" opens a combined record: a path with merge conflicts (no patch chunk of its own here).
    if (header.startsWith("::")) {
      raw.push({ status: "U", oldMode: "", newMode: "", path: parts[i++] ?? "" })
      continue
    }
    // ":<old mode> <new mode> <old id> <new id> <status>[score]", the modes six digits each.
    const status = header.slice(header.lastIndexOf(" ") + 1)
    const oldMode = header.slice(1, 7)
    const newMode = header.slice(8, 14)
    const first = parts[i++] ?? ""
    if (status.startsWith("R") || status.startsWith("C")) raw.push({ status: status[0]!, oldMode, newMode, oldPath: first, path: parts[i++] ?? "" })
    else raw.push({ status: status[0]!, oldMode, newMode, path: first })
  }
  // A NUL separates the raw part from the patch.
  const from = end < bytes.length && bytes[end] === 0 ? end + 1 : end
  return { raw, patch: decoder.decode(from === 0 ? bytes : bytes.subarray(from)) }
}

/** One file's part of a patch: `patch.slice(start, end)`. */
interface Chunk {
  readonly start: number
  readonly end: number
}

/** The patch cut at each file header (`diff --git`, `diff --cc`, `* Unmerged path`), combined-diff chunks left out. */
const chunksOf = (patch: string): Array<Chunk> => {
  const chunks: Array<Chunk> = []
  let start = -1
  const keep = (end: number) => {
    if (start >= 0 && patch.startsWith("diff --git ", start)) chunks.push({ start, end })
  }
  const re = /^(?:diff --git |diff --cc |\* Unmerged path )/gm
  for (let m = re.exec(patch); m !== null; m = re.exec(patch)) {
    keep(m.index)
    start = m.index
  }
  keep(patch.length)
  return chunks
}

/** Occurrences of `needle` in `text` from `from` up to (not including) `to`. */
const occurrences = (text: string, needle: string, from: number, to: number): number => {
  let n = 0
  for (let at = text.indexOf(needle, from); at !== -1 && at < to; at = text.indexOf(needle, at + 1)) n++
  return n
}

/** Added and removed lines of a chunk: lines starting with + or - from its first hunk on (each follows a newline). */
const countLines = (patch: string, chunk: Chunk): { additions: number; deletions: number } => {
  const at = patch.indexOf("\n@@", chunk.start)
  if (at === -1 || at >= chunk.end) return { additions: 0, deletions: 0 }
  // A line that starts at chunk.end belongs to the next chunk: its newline sits at chunk.end - 1.
  return { additions: occurrences(patch, "\n+", at, chunk.end - 1), deletions: occurrences(patch, "\n-", at, chunk.end - 1) }
}

/**
 * The diff tool's answer from `git diff --raw -z -p`: one entry per raw
 * record (two for a file ↔ symlink change, which git prints as a deletion and
 * an addition) with its chunk's line counts, and the text of those chunks,
 * each without its last newline, joined by newlines. Unmerged paths are listed
 * apart, without their combined diff, as the built-in diff does. A record
 * naming a path `hides` hides is left out with its chunks.
 */
export const parseDiff = (bytes: Uint8Array, hides?: DiffOptions["hides"]): DiffResult => {
  const { raw, patch } = splitRawPatch(bytes)
  const chunks = chunksOf(patch)
  const withheld: Array<{ path: string; dir: boolean }> = []
  // Both names of a rename or copy are left out (and counted) when a rule hides either.
  const hiding = (r: RawChange): ReadonlyArray<{ path: string; dir: boolean }> | undefined => {
    if (hides === undefined) return undefined
    const dir = r.oldMode === GITLINK_MODE || r.newMode === GITLINK_MODE
    const names = [...new Set([r.oldPath, r.path].filter((p) => p !== undefined))].map((path) => ({ path, dir }))
    return names.some((p) => hides(p.path, p.dir)) ? names : undefined
  }
  const conflicted = new Set<string>()
  for (const r of raw) {
    if (r.status !== "U") continue
    const hidden = hiding(r)
    if (hidden === undefined) conflicted.add(r.path)
    else withheld.push(...hidden)
  }
  const unmerged = [...conflicted].sort(compareBytes)
  const files: Array<ChangedFile> = []
  // Consecutive chunks are copied as one slice: dropping a chunk's last newline and joining with one gives the same text.
  const pieces: Array<string> = []
  let open: { start: number; end: number } | undefined
  const add = (chunk: Chunk | undefined) => {
    const start = chunk?.start ?? 0
    const end = chunk === undefined ? 0 : chunk.end > chunk.start && patch.charCodeAt(chunk.end - 1) === 0x0a ? chunk.end - 1 : chunk.end
    if (open !== undefined && chunk !== undefined && open.end + 1 === start && patch.charCodeAt(open.end) === 0x0a) {
      open.end = end
      return
    }
    if (open !== undefined) pieces.push(patch.slice(open.start, open.end))
    open = { start, end }
  }
  let next = 0
  for (const r of raw) {
    if (r.status === "U") continue
    const split = r.status === "T" && isLinkMode(r.oldMode) !== isLinkMode(r.newMode)
    const sides: ReadonlyArray<string> = split ? ["deleted", "added"] : [r.status === "A" ? "added" : r.status === "D" ? "deleted" : r.status === "R" ? "renamed" : r.status === "C" ? "copied" : "modified"]
    const hidden = hiding(r)
    if (hidden !== undefined) {
      // Left out with its patch: the chunks it would have used are passed over.
      next += sides.length
      withheld.push(...hidden)
      continue
    }
    for (const status of sides) {
      const chunk = chunks[next++]
      add(chunk)
      files.push({
        path: r.path,
        ...(r.oldPath !== undefined && r.oldPath !== r.path ? { old_path: r.oldPath } : {}),
        status,
        ...(chunk === undefined ? { additions: 0, deletions: 0 } : countLines(patch, chunk)),
      })
    }
  }
  if (open !== undefined) pieces.push(patch.slice(open.start, open.end))
  return { content: pieces.join("\n"), files, unmerged, withheld }
}

/** `git diff` or `git diff --staged` through the git command line, unmerged paths left out as the built-in diff does. */
export const cliDiff = (repo: Repository, cli: GitCli, options: DiffOptions): Effect.Effect<DiffResult, GitError> =>
  cli.run(repo.dir, diffArgs(options)).pipe(Effect.map((out) => parseDiff(out.stdout, options.hides)))

/** The commits reachable from HEAD (`git rev-list --count`), or undefined when git cannot say. */
const commitCount = (repo: Repository, cli: GitCli): Effect.Effect<number | undefined> =>
  cli.run(repo.dir, COUNT_ARGS, { allowFailure: true }).pipe(
    Effect.map((out) => {
      const printed = decoder.decode(out.stdout).trim()
      return out.exitCode === 0 && /^\d+$/.test(printed) ? Number(printed) : undefined
    }),
    Effect.orElseSucceed(() => undefined),
  )

/**
 * Up to `limit` commits from HEAD (git log's default order), whether more remain and then the total, through
 * the git command line. The total is counted only when the history was cut: run beside the log, the count cost
 * an uncut history a second git process, and a cut one gained nothing measurable on two busy cores.
 */
export const cliHistory = (repo: Repository, cli: GitCli, limit: number): Effect.Effect<HistoryPage, GitError> =>
  Effect.flatMap(newestCommits(repo, cli, limit), (page) =>
    page.more ? Effect.map(commitCount(repo, cli), (total) => ({ ...page, total })) : Effect.succeed(page),
  )

/** Up to `limit` commits from HEAD and whether more remain. */
const newestCommits = (repo: Repository, cli: GitCli, limit: number): Effect.Effect<HistoryPage, GitError> =>
  Effect.gen(function* () {
    const out = yield* cli.run(repo.dir, logArgs(limit), { allowFailure: true })
    if (out.exitCode !== 0) {
      // An unborn branch has no history: not an error.
      if (/does not have any commits|bad default revision|unknown revision/.test(out.stderr)) return { commits: [], more: false }
      return yield* cli.run(repo.dir, ["log", "-1"]).pipe(Effect.as({ commits: [], more: false }))
    }
    // Messages are text (what is not UTF-8 shows as U+FFFD, as the built-in reader shows it), not paths.
    const commits = fields(out.stdout, (b) => decoder.decode(b)).map((record): LogCommit => {
      const [oid = "", parents = "", name = "", email = "", at = "0", zone = "+0000", ...message] = record.split(LOG_UNIT)
      const sign = zone.startsWith("-") ? 1 : -1
      const minutes = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5))
      return {
        oid,
        parents: parents === "" ? [] : parents.split(" "),
        author: { name, email, timestamp: Number(at), timezoneOffset: sign * minutes },
        message: message.join(LOG_UNIT),
      }
    })
    return { commits: commits.slice(0, limit), more: commits.length > limit }
  })

/** A pathspec that names exactly `prefix` from the repository's top ("" is the whole tree). */
export const topPathspec = (prefix: string): string => (prefix === "" ? ":/" : `:(top,literal)${prefix}`)

/** Staged changes under `prefixes` as `git status` sees them before and after an add. */
const indexState = (repo: Repository, cli: GitCli, pathspecs: ReadonlyArray<string>) =>
  cli
    .run(repo.dir, ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--", ...pathspecs])
    .pipe(Effect.map((out) => parseStatusV2(out.stdout, false).entries))

/**
 * How the index differs from HEAD under the pathspecs, a letter (A, M, D, T) per path: what `git status` would
 * put in its index column, read without scanning the working tree (the second full scan of a large repository
 * cost git_add as much as the first).
 */
const stagedLetters = (repo: Repository, cli: GitCli, pathspecs: ReadonlyArray<string>) =>
  cli.run(repo.dir, ["diff", "--cached", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--", ...pathspecs]).pipe(
    Effect.map((out) => {
      const parts = fields(out.stdout)
      const letters = new Map<string, string>()
      for (let i = 0; i + 1 < parts.length; i += 2) letters.set(parts[i + 1]!, parts[i]!.slice(0, 1))
      return letters
    }),
  )

/** What `git add` staged, and the named paths it skipped as ignored. */
export interface AddAnswer {
  readonly changes: ReadonlyArray<{ readonly path: string; readonly change: string }>
  readonly ignored: ReadonlyArray<string>
  /** Named paths that matched no file: nothing was staged. */
  readonly unmatched: ReadonlyArray<number>
  /** Paths git left out of the index as outside the sparse-checkout definition (the rest was staged). */
  readonly sparse?: ReadonlyArray<string>
  /** A named path inside a submodule (a repository of its own): nothing was staged. */
  readonly inSubmodule?: { readonly index: number; readonly submodule: string }
}

/** A pathspec git quotes back, as the path it was made from (the pathspec magic taken off). */
const fromPathspec = (spec: string): string => (spec.startsWith(":(top,literal)") ? spec.slice(":(top,literal)".length) : spec)

/** `git add -A -- <prefixes>` through the git command line (ignored files are skipped and named, never forced). */
export const cliAdd = (repo: Repository, cli: GitCli, prefixes: ReadonlyArray<string>): Effect.Effect<AddAnswer, GitError> =>
  Effect.gen(function* () {
    const pathspecs = prefixes.map(topPathspec)
    const before = yield* indexState(repo, cli, pathspecs)
    const out = yield* cli.run(repo.dir, ["add", "-A", "--", ...pathspecs], { allowFailure: true })
    if (out.exitCode === 128 && /did not match any files/.test(out.stderr)) {
      const unmatched = prefixes.flatMap((p, i) => (out.stderr.includes(`'${topPathspec(p)}'`) ? [i] : []))
      return { changes: [], ignored: [], unmatched: unmatched.length > 0 ? unmatched : [0] }
    }
    const submodule = /Pathspec '([^\n]*)' is in submodule '([^\n]*)'/.exec(out.stderr)
    if (out.exitCode === 128 && submodule !== null) {
      const index = Math.max(0, pathspecs.indexOf(submodule[1]!))
      return { changes: [], ignored: [], unmatched: [], inSubmodule: { index, submodule: submodule[2]! } }
    }
    const ignoredBlock = /following paths are ignored[^\n]*\n([\s\S]*?)(?:\nhint:|$)/.exec(out.stderr)
    // Paths outside a sparse checkout: git stages the others and names these (exit 1), as it does ignored ones.
    const sparseBlock = /sparse-checkout definition, so will not be\s+updated in the index:\n([\s\S]*?)(?:\nhint:|$)/.exec(out.stderr)
    if (out.exitCode !== 0 && ignoredBlock === null && sparseBlock === null) {
      return yield* cli.run(repo.dir, ["add", "-A", "--", ...pathspecs]).pipe(Effect.as({ changes: [], ignored: [], unmatched: [] }))
    }
    const ignored = ignoredBlock ? ignoredBlock[1]!.split("\n").filter((l) => l.trim() !== "") : []
    const after = yield* stagedLetters(repo, cli, pathspecs)
    const changes: Array<{ path: string; change: string }> = []
    for (const e of before) {
      if (e.index !== "?" && e.worktree === " ") continue
      // A repository inside the tree is listed untracked as "dir/" and staged as the entry "dir".
      const path = e.index === "?" ? e.path.replace(/\/$/, "") : e.path
      // Still untracked after `git add -A`: git left it (an ignored path under a named folder).
      if (e.index === "?" && !after.has(path)) continue
      // Nothing staged for it before the add nor after: git left it as it was (a submodule with only changes
      // inside it, which its own commit records), so it is no change this add made.
      if (e.index === " " && !after.has(path)) continue
      // Gone from the index and from HEAD's comparison alike (added, then deleted before this add): taken out of the index.
      const x = after.get(path) ?? (e.worktree === "D" ? "D" : " ")
      changes.push({ path, change: x === "A" ? "added" : x === "D" ? "deleted" : "modified" })
    }
    changes.sort((a, b) => compareBytes(a.path, b.path))
    const sparse = sparseBlock ? sparseBlock[1]!.split("\n").filter((l) => l.trim() !== "").map(fromPathspec) : []
    return { changes, ignored, unmatched: [], ...(sparse.length > 0 ? { sparse } : {}) }
  })

/** The staged changes a commit would record, as `git diff --cached --name-status -M` lists them. */
export const cliStagedChanges = (
  repo: Repository,
  cli: GitCli,
): Effect.Effect<ReadonlyArray<{ path: string; change: string; from?: string }>, GitError> =>
  Effect.gen(function* () {
    const out = yield* cli.run(repo.dir, ["diff", "--cached", "--name-status", "-z", "--find-renames", "--no-ext-diff"])
    const parts = fields(out.stdout)
    const changes: Array<{ path: string; change: string; from?: string }> = []
    for (let i = 0; i < parts.length; ) {
      const status = parts[i++]!
      if (status.startsWith("R") || status.startsWith("C")) {
        const from = parts[i++]!
        changes.push({ path: parts[i++]!, change: "renamed", from })
      } else {
        const path = parts[i++]!
        changes.push({ path, change: status === "A" ? "added" : status === "D" ? "deleted" : "modified" })
      }
    }
    return changes.sort((a, b) => compareBytes(a.path, b.path))
  })

/** Records the index as a commit with `message` (hooks run by the caller, never by git) and returns its id. */
export const cliCommit = (
  repo: Repository,
  cli: GitCli,
  message: string,
  identity: Readonly<Record<string, string>>,
): Effect.Effect<string, GitError> =>
  Effect.gen(function* () {
    // The caller runs every hook itself, as the built-in backend does (to report which hook refused), so git runs
    // none: --no-verify skips pre-commit and commit-msg, an empty hooks folder prepare-commit-msg and post-commit.
    yield* cli.run(repo.dir, ["commit", "-q", "--no-verify", "--cleanup=verbatim", "--allow-empty-message", "-m", message], {
      extraEnv: { ...identity, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "/dev/null" },
    })
    const head = yield* cli.run(repo.dir, ["rev-parse", "HEAD"])
    return decoder.decode(head.stdout).trim()
  })
