import { existsSync, readFileSync, statSync } from "node:fs"
import { detachedFrom } from "./detached.ts"
import type { Repository } from "./repository.ts"

/**
 * A git operation stopped half-way (a rebase, cherry-pick, revert, am or bisect), read from the
 * worktree's git folder as `git status` reads it, so the long status says what git says (and which
 * command continues or aborts it) instead of a merge's advice.
 */
export interface OperationState {
  /** A rebase (merge or apply backend) or am session, when one is under way. */
  readonly rebase?: RebaseState
  readonly am?: { readonly emptyPatch: boolean }
  /** CHERRY_PICK_HEAD's commit abbreviated, or null during a sequence of picks (git names no commit then). */
  readonly cherryPick?: string | null
  readonly revert?: string | null
  /** The branch bisect started from, or null when it was detached. */
  readonly bisect?: string | null
  /** MERGE_HEAD or CHERRY_PICK_HEAD exists: git gives no unstage advice then. */
  readonly concluding: boolean
  /** .git/MERGE_MSG exists (a stopped pick whose conflicts are resolved, as git tells an edit stop from it). */
  readonly mergeMessage: boolean
}

export interface RebaseState {
  /** The merge backend's interactive marker (plain `git rebase` sets it too since git 2.26). */
  readonly interactive: boolean
  readonly branch: string | null
  readonly onto: string | null
  /** The commands done and to do, comments left out and hashes abbreviated (interactive only). */
  readonly done?: ReadonlyArray<string>
  readonly todo?: ReadonlyArray<string>
  /** Where the done list is, as git names it in its "(see more in file …)" advice. */
  readonly doneFile: string
}

const ABBREV = 7

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

const isFile = (file: string) => {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** A branch file of a rebase or bisect as git status reads it: refs/heads/ dropped, a hash abbreviated, "detached HEAD" none. */
const branchFile = (file: string): string | null => {
  const text = readText(file)?.replace(/\n+$/, "")
  if (!text) return null
  if (text.startsWith("refs/heads/")) return text.slice("refs/heads/".length)
  if (text.startsWith("refs/")) return text
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text)) return text.slice(0, ABBREV)
  if (text === "detached HEAD") return null
  return text
}

/** A rebase todo list as git status shows it: comments and blank lines dropped, each line's commit abbreviated. */
const todoLines = (file: string): ReadonlyArray<string> | undefined => {
  const text = readText(file)
  if (text === undefined) return undefined
  const out: Array<string> = []
  for (const raw of text.split("\n")) {
    if (raw.startsWith("#")) continue
    const line = raw.trim()
    if (line === "") continue
    if (/^(exec|x|label|l) /.test(line)) {
      out.push(line)
      continue
    }
    const m = /^(\S+ +)([0-9a-f]{40}(?:[0-9a-f]{24})?)( .*)?$/.exec(line)
    out.push(m ? `${m[1]}${m[2]!.slice(0, ABBREV)}${m[3] ?? ""}` : line)
  }
  return out
}

const rebaseState = (repo: Repository, folder: "rebase-merge" | "rebase-apply", interactive: boolean): RebaseState => {
  const dir = `${repo.gitdir}/${folder}`
  const shown = repo.gitdir === `${repo.dir}/.git` ? `.git/${folder}/done` : `${dir}/done`
  return {
    interactive,
    branch: branchFile(`${dir}/head-name`),
    onto: branchFile(`${dir}/onto`),
    ...(interactive ? { done: todoLines(`${dir}/done`) ?? [], todo: todoLines(`${dir}/git-rebase-todo`) } : {}),
    doneFile: shown,
  }
}

/** A pseudo-ref's commit (CHERRY_PICK_HEAD, REVERT_HEAD) abbreviated, or undefined when there is none. */
const pseudoRef = (repo: Repository, name: string): string | undefined => {
  // Pseudo-refs are the worktree's own, in its git folder.
  const oid = readText(`${repo.gitdir}/${name}`)?.trim()
  return oid !== undefined && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid) ? oid.slice(0, ABBREV) : undefined
}

/** What a sequence of cherry-picks or reverts stopped between commits will do next (git's sequencer todo). */
const sequencerAction = (repo: Repository): "pick" | "revert" | undefined => {
  const verb = readText(`${repo.gitdir}/sequencer/todo`)?.trimStart().split(/[ \t\n]/)[0]
  return verb === "pick" || verb === "p" ? "pick" : verb === "revert" || verb === "r" ? "revert" : undefined
}

/** The operation under way in `repo`'s worktree, as git status finds it. */
export const readOperation = (repo: Repository): OperationState => {
  const g = repo.gitdir
  const merging = isFile(`${g}/MERGE_HEAD`)
  let rebase: RebaseState | undefined
  let am: OperationState["am"]
  if (existsSync(`${g}/rebase-apply`)) {
    if (existsSync(`${g}/rebase-apply/applying`)) {
      let empty = false
      try {
        empty = statSync(`${g}/rebase-apply/patch`).size === 0
      } catch {}
      am = { emptyPatch: empty }
    } else rebase = rebaseState(repo, "rebase-apply", false)
  } else if (existsSync(`${g}/rebase-merge`)) {
    rebase = rebaseState(repo, "rebase-merge", existsSync(`${g}/rebase-merge/interactive`))
  }
  const pickHead = pseudoRef(repo, "CHERRY_PICK_HEAD")
  let cherryPick: string | null | undefined = !merging && !rebase && !am ? pickHead : undefined
  let revert: string | null | undefined = pseudoRef(repo, "REVERT_HEAD")
  const action = sequencerAction(repo)
  // A sequence of picks or reverts (git's sequencer) is announced without its commit, as git does.
  if (action === "pick") cherryPick = null
  else if (action === "revert") revert = null
  const bisect = existsSync(`${g}/BISECT_LOG`) ? branchFile(`${g}/BISECT_START`) : undefined
  return {
    ...(rebase ? { rebase } : {}),
    ...(am ? { am } : {}),
    ...(cherryPick !== undefined ? { cherryPick } : {}),
    ...(revert !== undefined ? { revert } : {}),
    ...(bisect !== undefined ? { bisect } : {}),
    concluding: merging || pickHead !== undefined,
    mergeMessage: isFile(`${g}/MERGE_MSG`),
  }
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

/** The interactive rebase's done and remaining commands as git status lists them. */
const rebaseInformation = (r: RebaseState): ReadonlyArray<string> => {
  if (!r.interactive) return []
  const out: Array<string> = []
  const done = r.done ?? []
  if (r.todo === undefined) out.push("git-rebase-todo is missing.")
  if (done.length === 0) out.push("No commands done.")
  else {
    out.push(`${plural(done.length, "Last command done", "Last commands done")} (${done.length} ${plural(done.length, "command", "commands")} done):`)
    for (const line of done.slice(-2)) out.push(`   ${line}`)
    if (done.length > 2) out.push(`  (see more in file ${r.doneFile})`)
  }
  const todo = r.todo ?? []
  if (todo.length === 0) out.push("No commands remaining.")
  else {
    out.push(`${plural(todo.length, "Next command to do", "Next commands to do")} (${todo.length} ${plural(todo.length, "remaining command", "remaining commands")}):`)
    for (const line of todo.slice(0, 2)) out.push(`   ${line}`)
    out.push('  (use "git rebase --edit-todo" to view and edit)')
  }
  return out
}

const rebasing = (r: RebaseState, what = "rebasing") =>
  r.branch !== null && r.onto !== null ? `You are currently ${what} branch '${r.branch}' on '${r.onto}'.` : `You are currently ${what}.`

/** The lines git status prints for the operation under way, each section ended by a blank line. */
export const operationLines = (op: OperationState | undefined, merging: boolean, conflicts: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  const sequence = (kind: "cherry-pick" | "revert", commit: string | null) => {
    const doing = kind === "cherry-pick" ? "cherry-picking" : "reverting"
    out.push(commit === null ? `${kind === "cherry-pick" ? "Cherry-pick" : "Revert"} currently in progress.` : `You are currently ${doing} commit ${commit}.`)
    out.push(
      conflicts > 0
        ? `  (fix conflicts and run "git ${kind} --continue")`
        : commit === null
          ? `  (run "git ${kind} --continue" to continue)`
          : `  (all conflicts fixed: run "git ${kind} --continue")`,
      `  (use "git ${kind} --skip" to skip this patch)`,
      `  (use "git ${kind} --abort" to cancel the ${kind} operation)`,
      "",
    )
  }
  if (merging) {
    if (op?.rebase?.interactive) out.push(...rebaseInformation(op.rebase), "")
    if (conflicts > 0) out.push("You have unmerged paths.", '  (fix conflicts and run "git commit")', '  (use "git merge --abort" to abort the merge)', "")
    else out.push("All conflicts fixed but you are still merging.", '  (use "git commit" to conclude merge)', "")
  } else if (op?.am) {
    out.push("You are in the middle of an am session.")
    if (op.am.emptyPatch) out.push("The current patch is empty.")
    else out.push('  (fix conflicts and then run "git am --continue")')
    out.push('  (use "git am --skip" to skip this patch)', '  (use "git am --abort" to restore the original branch)', "")
  } else if (op?.rebase) {
    const r = op.rebase
    out.push(...rebaseInformation(r))
    if (conflicts > 0) {
      out.push(
        rebasing(r),
        '  (fix conflicts and then run "git rebase --continue")',
        '  (use "git rebase --skip" to skip this patch)',
        '  (use "git rebase --abort" to check out the original branch)',
      )
    } else if (!r.interactive || op.mergeMessage) {
      out.push(rebasing(r), '  (all conflicts fixed: run "git rebase --continue")')
    } else {
      out.push(
        r.branch !== null && r.onto !== null
          ? `You are currently editing a commit while rebasing branch '${r.branch}' on '${r.onto}'.`
          : "You are currently editing a commit during a rebase.",
        '  (use "git commit --amend" to amend the current commit)',
        '  (use "git rebase --continue" once you are satisfied with your changes)',
      )
    }
    out.push("")
  } else if (op?.cherryPick !== undefined) sequence("cherry-pick", op.cherryPick)
  else if (op?.revert !== undefined) sequence("revert", op.revert)
  if (op?.bisect !== undefined) {
    out.push(op.bisect !== null ? `You are currently bisecting, started from branch '${op.bisect}'.` : "You are currently bisecting.")
    out.push('  (use "git bisect reset" to get back to the original branch)', "")
  }
  return out
}

/**
 * An interactive rebase stopped for the user to change history ('edit', 'break'): no pick is half-done (no
 * MERGE_MSG, no CHERRY_PICK_HEAD), as git status tells "You are currently editing a commit". git commits on
 * the detached HEAD there, and `git rebase --continue` goes on from that commit.
 */
export const atRebaseEditStop = (op: OperationState): boolean =>
  op.rebase !== undefined && op.rebase.interactive && !op.mergeMessage && !op.concluding && op.cherryPick === undefined && op.revert === undefined && op.am === undefined

/** The operation that a commit made now would cut across, for git_commit's refusal (undefined: none). */
export const unfinishedOperation = (op: OperationState): { what: string; next: string } | undefined => {
  if (atRebaseEditStop(op)) return undefined
  if (op.rebase) return { what: "A rebase is in progress", next: "git status && git rebase --continue" }
  if (op.am) return { what: "An am session is in progress", next: "git status && git am --continue" }
  if (op.cherryPick !== undefined) return { what: "A cherry-pick is in progress", next: "git status && git cherry-pick --continue" }
  if (op.revert !== undefined) return { what: "A revert is in progress", next: "git status && git revert --continue" }
  return undefined
}

/** `head` with the operation under way and, when detached, what it was detached from: what the long format's first lines need. */
export const withOperation = <H extends { readonly branch: string | undefined; readonly commit: string | undefined }>(repo: Repository, head: H) => {
  const detached = head.branch === undefined ? detachedFrom(repo, head.commit) : undefined
  return { ...head, operation: readOperation(repo), ...(detached ? { detachedFrom: detached } : {}) }
}
