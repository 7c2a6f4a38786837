import { isoGit } from "./iso-git.ts"
import { parseGitConfig } from "../workspace/git-config-file.ts"
import { indexMarks, unmergedCode, unmergedStages } from "./index-file.ts"
import { quotePath } from "./quote-path.ts"
import type { Repository } from "./repository.ts"
import type { UntrackedMode } from "./git-command.ts"
import { detectsCopies, detectsRenames, FALSE } from "./repository-config.ts"
import type { DetachedFrom } from "./detached.ts"
import { operationLines, withOperation, type OperationState } from "./operation.ts"
import { findRenames, type RenameCandidate } from "./similarity.ts"
import { compareBytes, GITLINK, readBlobBytes, submoduleChanged, type PathState, type Side, type Snapshot } from "./tree-states.ts"
import { readUpstream, upstreamLines, type UpstreamState } from "./upstream.ts"

/** One line of `git status --porcelain`. */
export interface StatusEntry {
  /** The path (the new one for a rename); untracked folders end in "/". */
  readonly path: string
  /** X: the index against HEAD (" ", M, A, D, R, T, or "?" for untracked). */
  readonly index: string
  /** Y: the working tree against the index (" ", M, D, T, or "?"). */
  readonly worktree: string
  /** The old path of a staged rename. */
  readonly orig_path?: string
  /** A submodule changed in the working tree: what git status says of it (new commits, modified or untracked content). */
  readonly submodule?: SubmoduleChange
}

/** How a submodule's working tree differs from the commit its superproject records. */
export interface SubmoduleChange {
  readonly new_commits: boolean
  readonly modified_content: boolean
  readonly untracked_content: boolean
}

/** git status's note after a changed submodule: " (new commits, modified content)". */
const submoduleNote = (s: SubmoduleChange | undefined): string => {
  if (s === undefined) return ""
  const parts = [...(s.new_commits ? ["new commits"] : []), ...(s.modified_content ? ["modified content"] : []), ...(s.untracked_content ? ["untracked content"] : [])]
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`
}

/** Where HEAD points. */
export interface HeadState {
  /** The branch name, or undefined when HEAD is detached. */
  readonly branch: string | undefined
  /** The commit HEAD names, or undefined before the first commit. */
  readonly commit: string | undefined
  /** A merge is being concluded (.git/MERGE_HEAD exists). */
  readonly merging: boolean
  /** In a sparse checkout: the share of tracked files present (git's rounding); absent otherwise. */
  readonly sparsePercent?: number
  /** A rebase, cherry-pick, revert, am or bisect under way (the long format's state lines). */
  readonly operation?: OperationState
  /** A detached HEAD: the ref or commit it was detached at or from (from HEAD's reflog); absent when unknown. */
  readonly detachedFrom?: DetachedFrom
}

/**
 * The share of tracked files a sparse checkout leaves in the working tree,
 * as `git status` announces it (100 minus the skip-worktree entries' share,
 * in whole percent), or undefined when core.sparseCheckout is off. The index
 * is read only when it is on.
 */
export const sparseCheckoutPercent = (repo: Repository): number | undefined => {
  const read = (p: string) => repo.configText(p) ?? ""
  const worktree = parseGitConfig(read(`${repo.gitdir}/config.worktree`)).get("core.sparsecheckout")
  const setting = worktree ?? parseGitConfig(read(`${repo.commondir}/config`)).get("core.sparsecheckout")
  if (setting === undefined || FALSE.test(setting)) return undefined
  const marks = indexMarks(repo.readGitFile(repo.indexFile) ?? new Uint8Array(0))
  if (marks.entries === 0) return undefined
  return 100 - Math.floor((100 * marks.skipWorktree.size) / marks.entries)
}

/**
 * Whether an entry is a merge conflict (its XY is one of git's unmerged codes:
 * UU, AA, UD, DU, AU, UA, DD — a U on either side, or both sides A or D).
 */
export const isUnmerged = (e: StatusEntry): boolean =>
  e.index === "U" || e.worktree === "U" || (e.index === e.worktree && (e.index === "A" || e.index === "D"))

const isLink = (mode: number) => mode === 0o120000

/** "M", "T" (file ↔ symlink) or " " between two sides of a path. */
const compare = (a: { oid?: string; mode: number }, b: { oid?: string; mode: number }, fileMode: boolean): string => {
  if (isLink(a.mode) !== isLink(b.mode)) return "T"
  if (a.oid !== b.oid) return "M"
  if (fileMode && a.mode !== b.mode) return "M"
  return " "
}

/** A working-tree file whose size changed is "M" to git status even when its stored content would not differ. */
const sizeOnly = (code: string, work: NonNullable<PathState["workdir"]>): string => (code === " " && work.sizeChanged ? "M" : code)

/** Where HEAD points (branch or detached) and its commit. */
export const readHead = async (repo: Repository): Promise<HeadState> => {
  const git = await isoGit()
  const branch = await git.currentBranch({ fs: repo.fs, gitdir: repo.gitdir, fullname: false, test: false }).catch(() => undefined)
  const commit = await git.resolveRef({ fs: repo.fs, gitdir: repo.gitdir, ref: "HEAD" }).catch(() => undefined)
  const merging = await repo.fs.promises.stat(`${repo.gitdir}/MERGE_HEAD`).then(
    () => true,
    () => false,
  )
  return withOperation(repo, { branch: branch || undefined, commit, merging })
}

/** The shallowest folder of an untracked path that holds no tracked file, as git collapses untracked folders. */
const collapse = (path: string, trackedDirs: ReadonlySet<string>): string => {
  const parts = path.split("/")
  for (let k = 1; k < parts.length; k++) {
    const dir = parts.slice(0, k).join("/")
    if (!trackedDirs.has(dir)) return `${dir}/`
  }
  return path
}

/** Staged renames among the paths deleted from and added to the index (git's default rename detection). */
export const stagedRenames = async (repo: Repository, states: ReadonlyArray<PathState>, copies = false) => {
  // Symlinks and submodules pair by identical content only.
  const regular = (s: Side) => !isLink(s.mode) && s.mode !== GITLINK
  // Copies come from deleted files and, as git -C takes them, from modified ones.
  const modified = (s: PathState) => copies && s.head !== undefined && s.stage !== undefined && (s.head.oid !== s.stage.oid || s.head.mode !== s.stage.mode)
  const sources: Array<RenameCandidate> = states
    .filter((s) => (s.head && !s.stage) || modified(s))
    .map((s) => ({ path: s.path, oid: s.head!.oid, regular: regular(s.head!), ...(s.stage ? { kept: true } : {}) }))
  const destinations: Array<RenameCandidate> = states
    .filter((s) => !s.head && s.stage)
    .map((s) => ({ path: s.path, oid: s.stage!.oid, regular: regular(s.stage!) }))
  if (sources.length === 0 || destinations.length === 0) return []
  return findRenames(sources, destinations, (oid) => readBlobBytes(repo, oid), copies)
}

/**
 * The entries of `git status --porcelain` (v1): changed tracked paths sorted
 * by path, then untracked paths (folders without tracked files collapsed to
 * `dir/`). Renames are detected among staged changes as git does.
 */
export const statusEntries = async (
  repo: Repository,
  snapshot: Snapshot,
  fileMode: boolean,
  mode: UntrackedMode = "normal",
): Promise<ReadonlyArray<StatusEntry>> => {
  const tracked: Array<StatusEntry> = []
  const untracked = new Set<string>()
  const addUntracked = (path: string) => {
    if (mode !== "no") untracked.add(mode === "all" ? path : collapse(path, snapshot.trackedDirs))
  }
  // Conflicts: isomorphic-git shows one index entry per path, the stages come from the index file itself.
  const conflicts = unmergedStages(await repo.fs.promises.readFile(repo.indexFile).then((b) => new Uint8Array(b), () => new Uint8Array(0)))
  for (const [path, stages] of conflicts) {
    const code = unmergedCode(stages)
    tracked.push({ path, index: code[0]!, worktree: code[1]! })
  }
  for (const s of snapshot.states) {
    if (conflicts.has(s.path)) continue
    if (s.intentToAdd) {
      tracked.push({ path: s.path, index: " ", worktree: s.workdir ? "A" : "D" })
      continue
    }
    if (!s.head && !s.stage) {
      if (s.workdir) addUntracked(s.path)
      continue
    }
    const x = !s.stage ? "D" : !s.head ? "A" : compare(s.head, s.stage, fileMode)
    const gitlink = s.stage?.mode === GITLINK && s.workdir !== undefined
    const y = !s.stage ? " " : !s.workdir ? "D" : gitlink ? (submoduleChanged(s.stage, s.workdir) ? "M" : " ") : sizeOnly(compare(s.stage, s.workdir, fileMode), s.workdir)
    if (x !== " " || y !== " ") {
      const work = s.workdir
      tracked.push(
        gitlink && y === "M" && work
          ? { path: s.path, index: x, worktree: y, submodule: { new_commits: work.oid !== s.stage!.oid, modified_content: work.dirty?.modified === true, untracked_content: work.dirty?.untracked === true } }
          : { path: s.path, index: x, worktree: y },
      )
    }
    // Removed from the index but still on disk: git lists it as untracked too.
    if (s.head && !s.stage && s.workdir) addUntracked(s.path)
  }
  // status.renames (else diff.renames) off: a rename is a deletion and an addition, as git shows it then.
  const renames = detectsRenames(repo.settings(), "status") ? await stagedRenames(repo, snapshot.states, detectsCopies(repo.settings(), "status")) : []
  const from = new Map(renames.map((r) => [r.to, r]))
  const sources = new Set(renames.filter((r) => !r.copy).map((r) => r.from))
  const entries = tracked
    .filter((e) => !(e.index === "D" && sources.has(e.path)))
    .map((e) => {
      const pair = e.index === "A" ? from.get(e.path) : undefined
      return pair ? { ...e, index: pair.copy ? "C" : "R", orig_path: pair.from } : e
    })
    .sort((a, b) => compareBytes(a.path, b.path))
  const others = [...untracked].sort(compareBytes).map((path) => ({ path, index: "?", worktree: "?" }))
  return [...entries, ...others]
}

/** How many entries are conflicts, staged, unstaged (a path may be both) and untracked. */
export const countEntries = (entries: ReadonlyArray<StatusEntry>) => {
  let unmerged = 0
  let staged = 0
  let unstaged = 0
  let untracked = 0
  for (const e of entries) {
    if (e.index === "?") untracked++
    else if (isUnmerged(e)) unmerged++
    else {
      if (e.index !== " ") staged++
      if (e.worktree !== " " && e.worktree !== "?") unstaged++
    }
  }
  return { unmerged, staged, unstaged, untracked }
}

/** `git status --porcelain`: one `XY path` line per entry. */
export const formatShort = (entries: ReadonlyArray<StatusEntry>): string => {
  const porcelain = { quoteSpace: true }
  const lines: Array<string> = new Array(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    const from = e.orig_path !== undefined ? `${quotePath(e.orig_path, porcelain)} -> ` : ""
    lines[i] = `${e.index}${e.worktree} ${from}${quotePath(e.path, porcelain)}`
  }
  return lines.join("\n")
}

const LABELS: Record<string, string> = { A: "new file:", M: "modified:", D: "deleted:", R: "renamed:", C: "copied:", T: "typechange:" }
const label = (code: string) => (LABELS[code] ?? "unknown:").padEnd(12)

/** The branch lines that open `git status`. */
export const headLines = (head: HeadState, upstream: UpstreamState | undefined, conflicts: number): ReadonlyArray<string> => {
  const rebase = head.operation?.rebase
  const lines = [
    head.branch !== undefined
      ? `On branch ${head.branch}`
      : rebase
        ? `${rebase.interactive ? "interactive rebase" : "rebase"} in progress; onto ${rebase.onto ?? ""}`
        : head.detachedFrom
          ? `HEAD detached ${head.detachedFrom.at ? "at" : "from"} ${head.detachedFrom.name}`
          : "Not currently on any branch.",
  ]
  if (upstream) lines.push(...upstreamLines(upstream), "")
  lines.push(...operationLines(head.operation, head.merging, conflicts))
  if (head.sparsePercent !== undefined) lines.push(`You are in a sparse checkout with ${head.sparsePercent}% of tracked files present.`, "")
  if (head.commit === undefined) lines.push("", "No commits yet", "")
  return lines
}

const CONFLICT_LABELS: Record<string, string> = {
  DD: "both deleted:",
  AU: "added by us:",
  UD: "deleted by them:",
  UA: "added by them:",
  DU: "deleted by us:",
  AA: "both added:",
  UU: "both modified:",
}

/**
 * The long format as git prints it with advice.statusHints off: every advice line ("  (use …)") left out and
 * the closing line without its parenthesis.
 */
export const withoutHints = (long: string): string =>
  long
    .split("\n")
    .filter((line) => !/^  \(.*\)$/.test(line))
    .map((line) => (/^(no changes added to commit|nothing added to commit|nothing to commit|Untracked files not listed)\b.* \(.*\)$/.test(line) ? line.replace(/ \(.*\)$/, "") : line))
    .join("\n")

/** `git status` (long format, with git's advice lines). Paths are relative to the repository top. */
export const formatLong = (
  entries: ReadonlyArray<StatusEntry>,
  head: HeadState,
  upstream: UpstreamState | undefined,
  mode: UntrackedMode = "normal",
): string => {
  const conflicts = entries.filter(isUnmerged)
  const out: Array<string> = [...headLines(head, upstream, conflicts.length)]
  // git gives no unstage advice while a merge or a cherry-pick is being concluded.
  const concluding = head.merging || head.operation?.concluding === true
  const staged = entries.filter((e) => e.index !== " " && e.index !== "?" && !isUnmerged(e))
  const unstaged = entries.filter((e) => e.worktree !== " " && e.worktree !== "?" && !isUnmerged(e))
  const untracked = entries.filter((e) => e.index === "?")
  const q = (p: string) => quotePath(p)
  if (staged.length > 0) {
    out.push("Changes to be committed:")
    if (!concluding) {
      out.push(head.commit === undefined ? '  (use "git rm --cached <file>..." to unstage)' : '  (use "git restore --staged <file>..." to unstage)')
    }
    for (const e of staged) out.push(`\t${label(e.index)}${e.orig_path !== undefined ? `${q(e.orig_path)} -> ` : ""}${q(e.path)}`)
    out.push("")
  }
  if (conflicts.length > 0) {
    const codes = new Set(conflicts.map((e) => `${e.index}${e.worktree}`))
    const deleteModify = codes.has("UD") || codes.has("DU")
    out.push("Unmerged paths:")
    if (!concluding) {
      out.push(head.commit === undefined ? '  (use "git rm --cached <file>..." to unstage)' : '  (use "git restore --staged <file>..." to unstage)')
    }
    out.push(
      deleteModify
        ? '  (use "git add/rm <file>..." as appropriate to mark resolution)'
        : codes.has("DD")
          ? '  (use "git rm <file>..." to mark resolution)'
          : '  (use "git add <file>..." to mark resolution)',
    )
    for (const e of conflicts) out.push(`\t${CONFLICT_LABELS[`${e.index}${e.worktree}`]!.padEnd(17)}${q(e.path)}`)
    out.push("")
  }
  if (unstaged.length > 0) {
    out.push("Changes not staged for commit:")
    out.push(
      unstaged.some((e) => e.worktree === "D")
        ? '  (use "git add/rm <file>..." to update what will be committed)'
        : '  (use "git add <file>..." to update what will be committed)',
    )
    out.push('  (use "git restore <file>..." to discard changes in working directory)')
    if (unstaged.some((e) => e.submodule?.modified_content || e.submodule?.untracked_content)) {
      out.push("  (commit or discard the untracked or modified content in submodules)")
    }
    for (const e of unstaged) out.push(`\t${label(e.worktree)}${q(e.path)}${submoduleNote(e.submodule)}`)
    out.push("")
  }
  if (untracked.length > 0) {
    out.push("Untracked files:", '  (use "git add <file>..." to include in what will be committed)')
    for (const e of untracked) out.push(`\t${q(e.path)}`)
    out.push("")
  } else if (mode === "no" && staged.length > 0) out.push("Untracked files not listed (use -u option to show untracked files)")
  if (staged.length === 0) {
    if (unstaged.length > 0 || conflicts.length > 0) out.push('no changes added to commit (use "git add" and/or "git commit -a")')
    else if (untracked.length > 0) out.push('nothing added to commit but untracked files present (use "git add" to track)')
    else if (head.commit === undefined) out.push('nothing to commit (create/copy files and use "git add" to track)')
    else if (mode === "no") out.push("nothing to commit (use -u to show untracked files)")
    else out.push("nothing to commit, working tree clean")
  }
  return out.join("\n")
}

/** Reads the upstream of the current branch, when there is one. */
export const currentUpstream = (repo: Repository, head: HeadState): Promise<UpstreamState | undefined> =>
  head.branch !== undefined && head.commit !== undefined ? readUpstream(repo, head.branch, head.commit).catch(() => undefined) : Promise.resolve(undefined)
