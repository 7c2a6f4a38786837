import { alternateObjectDirs } from "./alternates.ts"
import { parseCommit, type LogCommit } from "./commit-object.ts"
import { objectStore } from "./object-store.ts"
import { readGitFile, resolveRef } from "./refs.ts"
import type { Repository } from "./repository.ts"

export type { LogCommit } from "./commit-object.ts"

/** A page of history: the commits shown, whether more remain and, when known, how many commits HEAD reaches in all. */
export interface HistoryPage {
  readonly commits: ReadonlyArray<LogCommit>
  readonly more: boolean
  readonly total?: number | undefined
}

/**
 * Up to `limit` commits reachable from HEAD, newest commit date first (git
 * log's default order: a queue by committer date, ties in the order found),
 * and whether more remain. Commits are read with our own object reader, so
 * SHA-256 repositories and alternates work without git; messages are
 * re-encoded from their `encoding` header as git log does.
 */
export const readHistory = async (repo: Repository, limit: number): Promise<HistoryPage> => {
  if (/^reftable$/i.test(repo.settings().get("extensions.refstorage") ?? "")) {
    throw new Error("this repository keeps its branches in a reftable (extensions.refStorage), which the built-in git reader cannot read: install git (anvil then runs it) or use Bash with git")
  }
  const head = resolveRef(repo, "HEAD")
  if (head === undefined) return { commits: [], more: false }
  const store = historyStore(repo)
  const shallow = shallowCommits(repo)
  try {
    const queue: Array<{ date: number; order: number; commit: LogCommit }> = []
    const seen = new Set<string>()
    let order = 0
    const enqueue = (oid: string) => {
      if (seen.has(oid)) return
      seen.add(oid)
      const object = store.read(oid)
      if (object.type !== "commit") throw new Error(`${oid} is a ${object.type}, not a commit`)
      const commit = parseCommit(oid, object.content)
      queue.push({ date: commit.committedAt, order: order++, commit })
    }
    enqueue(head)
    const commits: Array<LogCommit> = []
    while (queue.length > 0) {
      queue.sort((a, b) => b.date - a.date || a.order - b.order)
      const next = queue.shift()!
      if (commits.length === limit) return { commits, more: true }
      const { committedAt: _, ...commit } = next.commit as LogCommit & { committedAt: number }
      commits.push(commit)
      if (!shallow.has(commit.oid)) for (const parent of next.commit.parents) enqueue(parent)
    }
    return { commits, more: false }
  } finally {
    store.close()
  }
}

/** A shallow clone's boundary commits: their parents were never fetched, and git log (and rev-list) end there. */
const shallowCommits = (repo: Repository): ReadonlySet<string> =>
  new Set((readGitFile(repo, `${repo.commondir}/shallow`) ?? "").split("\n").filter((l) => l !== ""))

/** The repository's object store (its own folder and alternates) in its object format. */
export const historyStore = (repo: Repository) => {
  const objectsDir = `${repo.commondir}/objects`
  const sha256 = /^sha256$/i.test(repo.settings().get("extensions.objectformat") ?? "")
  return objectStore(repo.fs, [objectsDir, ...alternateObjectDirs(objectsDir)], sha256 ? 32 : 20)
}

/** The commits reachable from HEAD (`git rev-list --count HEAD`): a walk of parents only, for a cut log's total. */
export const countHistory = async (repo: Repository): Promise<number> => {
  const head = resolveRef(repo, "HEAD")
  if (head === undefined) return 0
  const store = historyStore(repo)
  const shallow = shallowCommits(repo)
  try {
    const seen = new Set<string>([head])
    const stack = [head]
    while (stack.length > 0) {
      const oid = stack.pop()!
      if (shallow.has(oid)) continue
      for (const parent of parseCommit(oid, store.read(oid).content).parents) {
        if (seen.has(parent)) continue
        seen.add(parent)
        stack.push(parent)
      }
    }
    return seen.size
  } finally {
    store.close()
  }
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

/** A message line as git prints it: trailing whitespace (git's isspace: space, tab, CR, LF) dropped. */
const rtrim = (line: string): string => line.replace(/[ \t\n\r]+$/, "")

/** The message's lines from its first non-blank one on, each right-trimmed (git's pretty-printer reads it so). */
const messageLines = (message: string): Array<string> => {
  const lines = message.split("\n").map(rtrim)
  const first = lines.findIndex((l) => l !== "")
  return first === -1 ? [] : lines.slice(first)
}

/** The subject: the message's first paragraph, its lines joined by spaces, leading whitespace kept (git's %s). */
export const subjectOf = (message: string): string => {
  const lines = messageLines(message)
  const end = lines.indexOf("")
  return (end === -1 ? lines : lines.slice(0, end)).join(" ")
}

/** Tabs expanded to the next multiple of 8 columns, as git log's medium format does (--expand-tabs). */
const expandTabs = (line: string): string => {
  if (!line.includes("\t")) return line
  let out = ""
  let column = 0
  for (const ch of line) {
    if (ch === "\t") {
      const pad = 8 - (column % 8)
      out += " ".repeat(pad)
      column += pad
    } else {
      out += ch
      column++
    }
  }
  return out
}

/**
 * `git log` (medium format). A message is printed from its first non-blank
 * line, each line right-trimmed and indented, blank lines at its end dropped;
 * an empty one leaves no blank line after the date (as git prints it).
 */
export const formatMedium = (commits: ReadonlyArray<LogCommit>): string =>
  commits
    .map((c) => {
      const lines = [`commit ${c.oid}`]
      if (c.parents.length > 1) lines.push(`Merge: ${c.parents.map((p) => p.slice(0, 7)).join(" ")}`)
      lines.push(`Author: ${c.author.name} <${c.author.email}>`, `Date:   ${gitDate(c.author.timestamp, c.author.timezoneOffset)}`)
      const body = messageLines(c.message)
      while (body.length > 0 && body[body.length - 1] === "") body.pop()
      if (body.length > 0) lines.push("", ...body.map((line) => (line === "" ? "    " : `    ${expandTabs(line)}`)))
      return lines.join("\n")
    })
    .join("\n\n")

/** `git log --oneline`. */
export const formatOneline = (commits: ReadonlyArray<LogCommit>): string => commits.map((c) => `${c.oid.slice(0, 7)} ${subjectOf(c.message)}`).join("\n")
