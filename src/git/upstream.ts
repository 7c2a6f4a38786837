import { isoGit } from "./iso-git.ts"
import type { Repository } from "./repository.ts"
import { counted } from "../protocol/plural.ts"

/** The branch's upstream and how far the two have moved apart. */
export interface UpstreamState {
  /** As git names it: "origin/main". */
  readonly name: string
  readonly ahead: number
  readonly behind: number
  /** False when the configured upstream ref does not exist (gone). */
  readonly exists: boolean
}

const LOCAL = 1
const REMOTE = 2
const BOTH = LOCAL | REMOTE
/** Stop counting after this many commits (a very long divergence); the counts are then lower bounds. */
const WALK_LIMIT = 20000

/**
 * The upstream of `branch` (branch.<name>.remote / .merge) with ahead/behind
 * counts, or undefined when none is configured. Commits are visited newest
 * first from both tips until every open commit is reachable from both, as git
 * does.
 */
export const readUpstream = async (repo: Repository, branch: string, head: string): Promise<UpstreamState | undefined> => {
  const git = await isoGit()
  const get = (path: string) => git.getConfig({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, path }).catch(() => undefined)
  const remote = await get(`branch.${branch}.remote`)
  const merge = await get(`branch.${branch}.merge`)
  if (typeof remote !== "string" || typeof merge !== "string") return undefined
  const short = merge.replace(/^refs\/heads\//, "")
  const ref = remote === "." ? merge : `refs/remotes/${remote}/${short}`
  const name = remote === "." ? short : `${remote}/${short}`
  const tip = await git.resolveRef({ fs: repo.fs, gitdir: repo.gitdir, ref }).catch(() => undefined)
  if (!tip) return { name, ahead: 0, behind: 0, exists: false }

  const flags = new Map<string, number>()
  const dates = new Map<string, number>()
  const parentsOf = new Map<string, ReadonlyArray<string>>()
  const load = async (oid: string) => {
    if (!parentsOf.has(oid)) {
      const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, oid, cache: repo.cache })
      parentsOf.set(oid, commit.parent)
      dates.set(oid, commit.committer.timestamp)
    }
  }
  const queue: Array<string> = []
  const push = async (oid: string, flag: number) => {
    const before = flags.get(oid) ?? 0
    if ((before | flag) === before) return
    flags.set(oid, before | flag)
    await load(oid)
    if (!queue.includes(oid)) queue.push(oid)
  }
  await push(head, LOCAL)
  await push(tip, REMOTE)
  let visited = 0
  while (queue.some((oid) => flags.get(oid) !== BOTH) && visited++ < WALK_LIMIT) {
    queue.sort((a, b) => (dates.get(b) ?? 0) - (dates.get(a) ?? 0))
    const oid = queue.shift()!
    const flag = flags.get(oid)!
    for (const parent of parentsOf.get(oid) ?? []) await push(parent, flag)
  }
  // Counted once the walk is over, by each commit's final marks (equal dates may visit a commit early).
  let ahead = 0
  let behind = 0
  for (const flag of flags.values()) {
    if (flag === LOCAL) ahead++
    else if (flag === REMOTE) behind++
  }
  return { name, ahead, behind, exists: true }
}

const commits = (n: number) => counted(n, "commit")

/** The lines `git status` prints about the upstream (with its advice lines). */
export const upstreamLines = (u: UpstreamState): ReadonlyArray<string> => {
  if (!u.exists) {
    return [`Your branch is based on '${u.name}', but the upstream is gone.`, '  (use "git branch --unset-upstream" to fixup)']
  }
  if (u.ahead === 0 && u.behind === 0) return [`Your branch is up to date with '${u.name}'.`]
  if (u.behind === 0) return [`Your branch is ahead of '${u.name}' by ${commits(u.ahead)}.`, '  (use "git push" to publish your local commits)']
  if (u.ahead === 0) {
    return [
      `Your branch is behind '${u.name}' by ${commits(u.behind)}, and can be fast-forwarded.`,
      '  (use "git pull" to update your local branch)',
    ]
  }
  return [
    `Your branch and '${u.name}' have diverged,`,
    `and have ${u.ahead} and ${u.behind} different commits each, respectively.`,
    '  (use "git pull" to merge the remote branch into yours)',
  ]
}
