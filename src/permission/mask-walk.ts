import { readdirSync, statSync, type Dirent } from "node:fs"
import { join } from "node:path"
import { DEFAULT_IGNORED_DIRS } from "../workspace/default-ignored.ts"
import { listFastKept, type FastEntry } from "../workspace/fast-listing.ts"
import { NameFilter } from "../workspace/name-filter.ts"
import { MAX_MASK_ENTRIES } from "../sandbox/settings.ts"
import type { PatternRule } from "./rules.ts"
import { pathGlob, rootGlob, subjectMatches } from "./path-patterns.ts"


/** Folders a walk enters only when a rule is anchored into them: dependency and build trees hold tens of thousands of files. */
const HEAVY = new Set(DEFAULT_IGNORED_DIRS)

/** A place a pattern rule matches: root-relative, and the rule (deny before ask when both match). */
export interface WalkMatch {
  readonly rel: string
  readonly rule: PatternRule
}

export interface MaskWalk {
  readonly found: ReadonlyArray<WalkMatch>
  /** The walk stopped at MAX_MASK_ENTRIES: places past that point are not found. */
  readonly stopped: boolean
}

const entryOf = (e: Dirent): FastEntry => ({ name: e.name, type: e.isDirectory() ? "Directory" : e.isSymbolicLink() ? "SymbolicLink" : e.isFile() ? "File" : "Other" })

const ASCII = /^[\x00-\x7f]*$/

/** A rule with what tells cheaply that it cannot match: matching every name of a large tree dominated the walk. */
interface Prepared {
  readonly rule: PatternRule
  /** The literal end every path it matches has (`.pem` for `*.pem`); checked on ASCII names (others are normalized first). */
  readonly tail: string
  /** It matches at any depth, so every folder may hold a match. */
  readonly anywhere: boolean
}

const prepared = (rule: PatternRule): Prepared => {
  const glob = rootGlob(rule.pattern)
  // A folder rule (`secret/`, `…/**`) matches the folder by its own name: the end is taken before the `/**`.
  const stem = glob.endsWith("/**") ? glob.slice(0, -3) : glob
  const tail = stem.slice(stem.search(/[^*?[\]{}]*$/)).replace(/^\/+/, "")
  return { rule, tail: ASCII.test(tail) ? tail : "", anywhere: glob.startsWith("**") }
}

/** What one folder gave a walk, kept with the folder's times: a folder whose times are unchanged gives the same. */
interface Visit {
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly found: ReadonlyArray<WalkMatch>
  readonly folders: ReadonlyArray<string>
  readonly entries: number
}

/**
 * A walk of the project for the places pattern rules (`*.pem`, `**\/secret/`, a bare `.env` at any depth) match,
 * for the command sandbox to hide them as read refuses them. Gitignored files are walked too (a secret usually is
 * one), but not `.git` (commands need it for git to work), nor dependency and build folders (`node_modules`,
 * `dist`, … the search tools' default list) unless a rule is anchored into one, nor a folder no rule can reach
 * into; a folder a rule matches is one place. What each folder gave is kept and worked out again only when the
 * folder's times change (an entry added, removed or renamed), so a later command's start stats the folders
 * rather than listing and matching them.
 */
export const maskWalker = (root: string, rules: ReadonlyArray<PatternRule>) => {
  // A deny rule is named before an ask rule matching the same place: it is the one that decides.
  const ordered = [...rules].sort((a, b) => (a.level === b.level ? 0 : a.level === "deny" ? -1 : 1)).map(prepared)
  // A rule that names a place at any depth (`**/…`, a bare name) does not take the walk into a heavy folder.
  const anchored = ordered.filter((r) => !r.anywhere)
  // Names no rule can match are never decoded (the kernel's listing is read as bytes): only folders and these.
  const keep = ordered.some((r) => r.tail === "") ? undefined : new NameFilter(ordered.map((r) => ({ prefix: "", suffix: r.tail.slice(r.tail.lastIndexOf("/") + 1), exact: false })))
  const visits = new Map<string, Visit>()
  const visit = (dir: string): Visit | undefined => {
    const abs = dir === "" ? root : join(root, dir)
    let entries: ReadonlyArray<FastEntry>
    let total: number
    let st
    try {
      st = statSync(abs)
      const known = visits.get(dir)
      if (known && known.mtimeMs === st.mtimeMs && known.ctimeMs === st.ctimeMs) return known
      const fast = listFastKept(abs, keep)
      if (fast === undefined) return undefined
      if (fast === "fallback") {
        entries = readdirSync(abs, { withFileTypes: true }).map(entryOf)
        total = entries.length
      } else ({ entries, total } = fast)
    } catch {
      return undefined
    }
    const found: Array<WalkMatch> = []
    const folders: Array<string> = []
    for (const entry of entries) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`
      const isDir = entry.type === "Directory"
      // A folder is also judged as `rel/`: a `secret/` or `secret/**` rule matches it so (hidden-paths.ts folderDenial).
      const plain = ASCII.test(rel)
      const rule = ordered.find(
        (r) => (!plain || rel.endsWith(r.tail)) && (subjectMatches("path", r.rule.pattern, rel) || (isDir && subjectMatches("path", r.rule.pattern, `${rel}/`))),
      )?.rule
      if (rule !== undefined) found.push({ rel, rule })
      else if (isDir && entry.name !== ".git") {
        const reaches = (r: Prepared) => r.anywhere || pathGlob(r.rule.pattern).startsMatch(`${rel}/`.normalize("NFC"))
        if (HEAVY.has(entry.name) ? anchored.some(reaches) : ordered.some(reaches)) folders.push(rel)
      }
    }
    const made = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, found, folders, entries: total }
    visits.set(dir, made)
    return made
  }
  return (): MaskWalk => {
    const found: Array<WalkMatch> = []
    const seen = new Set<string>()
    let queue: ReadonlyArray<string> = [""]
    let looked = 0
    let stopped = false
    while (queue.length > 0 && !stopped) {
      const next: Array<string> = []
      for (const dir of queue) {
        const v = visit(dir)
        seen.add(dir)
        if (v === undefined) continue
        looked += v.entries
        if (looked > MAX_MASK_ENTRIES) {
          stopped = true
          break
        }
        found.push(...v.found)
        next.push(...v.folders)
      }
      queue = next
    }
    // Folders gone (or not reached) since are forgotten: a long session does not keep every folder it ever saw.
    for (const dir of visits.keys()) if (!seen.has(dir)) visits.delete(dir)
    return { found, stopped }
  }
}
