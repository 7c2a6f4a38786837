import { isoGit } from "./iso-git.ts"
import type { Repository } from "./repository.ts"

/** A commit as the log shows it. */
export interface LogCommit {
  readonly oid: string
  readonly parents: ReadonlyArray<string>
  readonly author: { readonly name: string; readonly email: string; readonly timestamp: number; readonly timezoneOffset: number }
  readonly message: string
}

/**
 * Up to `limit` commits reachable from HEAD, newest commit date first (git
 * log's default order: a queue by committer date, ties in the order found),
 * and whether more remain.
 */
export const readHistory = async (repo: Repository, limit: number): Promise<{ commits: ReadonlyArray<LogCommit>; more: boolean }> => {
  const git = await isoGit()
  const head = await git.resolveRef({ fs: repo.fs, gitdir: repo.gitdir, ref: "HEAD" }).catch(() => undefined)
  if (head === undefined) return { commits: [], more: false }
  const queue: Array<{ oid: string; date: number; order: number; commit: LogCommit }> = []
  const seen = new Set<string>()
  let order = 0
  const enqueue = async (oid: string) => {
    if (seen.has(oid)) return
    seen.add(oid)
    const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, oid, cache: repo.cache })
    queue.push({
      oid,
      date: commit.committer.timestamp,
      order: order++,
      commit: { oid, parents: commit.parent, author: commit.author, message: commit.message },
    })
  }
  await enqueue(head)
  const commits: Array<LogCommit> = []
  while (queue.length > 0) {
    queue.sort((a, b) => b.date - a.date || a.order - b.order)
    const next = queue.shift()!
    if (commits.length === limit) return { commits, more: true }
    commits.push(next.commit)
    for (const parent of next.commit.parents) await enqueue(parent)
  }
  return { commits, more: false }
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const two = (n: number) => String(n).padStart(2, "0")

/** The timezone as git writes it ("+0200"); isomorphic-git's offset is in minutes, positive west of UTC. */
export const gitZone = (timezoneOffset: number): string => {
  const east = -timezoneOffset
  const abs = Math.abs(east)
  return `${east < 0 ? "-" : "+"}${two(Math.floor(abs / 60))}${two(abs % 60)}`
}

/** git's default date format in the author's own zone: "Sat Nov 21 05:44:25 2026 +0000". */
export const gitDate = (timestamp: number, timezoneOffset: number): string => {
  const d = new Date((timestamp - timezoneOffset * 60) * 1000)
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(
    d.getUTCSeconds(),
  )} ${d.getUTCFullYear()} ${gitZone(timezoneOffset)}`
}

/** The subject: the message's first paragraph, its lines joined by spaces (git's %s). */
export const subjectOf = (message: string): string => {
  const lines = message.replace(/^\s*\n/, "").split("\n")
  const first: Array<string> = []
  for (const line of lines) {
    if (line.trim() === "") break
    first.push(line.trim())
  }
  return first.join(" ")
}

/** `git log` (medium format). */
export const formatMedium = (commits: ReadonlyArray<LogCommit>): string =>
  commits
    .map((c) => {
      const lines = [`commit ${c.oid}`]
      if (c.parents.length > 1) lines.push(`Merge: ${c.parents.map((p) => p.slice(0, 7)).join(" ")}`)
      lines.push(`Author: ${c.author.name} <${c.author.email}>`, `Date:   ${gitDate(c.author.timestamp, c.author.timezoneOffset)}`, "")
      for (const line of c.message.replace(/\s+$/, "").split("\n")) lines.push(`    ${line}`)
      return lines.join("\n")
    })
    .join("\n\n")

/** `git log --oneline`. */
export const formatOneline = (commits: ReadonlyArray<LogCommit>): string => commits.map((c) => `${c.oid.slice(0, 7)} ${subjectOf(c.message)}`).join("\n")
