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

/**
 * A folder changed within this long before a walk looked may get a later change within the same clock tick (file
 * times advance by the kernel's tick, milliseconds; a second on some file systems), which leaves its times as they
 * were: what is that recent is listed again by the next walk instead of trusted (as git does with racily clean files).
 */
const RACY_MS = 2_500

/**
 * What one folder gave a walk, kept with the folder's stamp (inode, ctime, mtime): a folder whose stamp is unchanged
 * gives the same, since any entry made, removed or renamed in it moves its ctime, which no command can set back.
 */
export interface Visit {
  /** Undefined when the folder changed too recently to trust (see RACY_MS): listed again next time. */
  readonly stamp: string | undefined
  readonly found: ReadonlyArray<WalkMatch>
  readonly folders: ReadonlyArray<string>
  readonly entries: number
}

/** Where a walk's visits are kept for the next anvil process (mask-walk-store.ts). */
export interface VisitStore {
  readonly load: () => Map<string, Visit> | undefined
  readonly save: (visits: ReadonlyMap<string, Visit>) => void
}

/**
 * A walk of the project for the places pattern rules (`*.pem`, `**\/secret/`, a bare `.env` at any depth) match,
 * for the command sandbox to hide them as read refuses them. Gitignored files are walked too (a secret usually is
 * one), but not `.git` (commands need it for git to work), nor dependency and build folders (`node_modules`,
 * `dist`, … the search tools' default list) unless a rule is anchored into one, nor a folder no rule can reach
 * into; a folder a rule matches is one place. What each folder gave is kept and worked out again only when the
 * folder's stamp changes (an entry added, removed or renamed) or is too recent to trust, so a later command's start
 * stats the folders rather than listing and matching them; given a store, so does the next anvil process's.
 */
export const maskWalker = (
  root: string,
  rules: ReadonlyArray<PatternRule>,
  /** How recent a folder's change may be and its visit still kept (tests shorten it). */
  racyMs: number = RACY_MS,
) => {
  // A deny rule is named before an ask rule matching the same place: it is the one that decides.
  const ordered = [...rules].sort((a, b) => (a.level === b.level ? 0 : a.level === "deny" ? -1 : 1)).map(prepared)
  // A rule that names a place at any depth (`**/…`, a bare name) does not take the walk into a heavy folder.
  const anchored = ordered.filter((r) => !r.anywhere)
  // Names no rule can match are never decoded (the kernel's listing is read as bytes): only folders and these.
  const keep = ordered.some((r) => r.tail === "") ? undefined : new NameFilter(ordered.map((r) => ({ prefix: "", suffix: r.tail.slice(r.tail.lastIndexOf("/") + 1), exact: false })))
  let visits = new Map<string, Visit>()
  let loaded = false
  // Whether the visits differ from what the store holds.
  let unsaved = false
  let since = 0
  const visit = (dir: string): Visit | undefined => {
    const abs = dir === "" ? root : join(root, dir)
    let entries: ReadonlyArray<FastEntry>
    let total: number
    let stamp: string | undefined
    let known: Visit | undefined
    try {
      const st = statSync(abs)
      stamp = st.ctimeMs >= since ? undefined : `${st.ino}:${st.ctimeMs}:${st.mtimeMs}`
      known = visits.get(dir)
      if (stamp !== undefined && known?.stamp === stamp) return known
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
    const made = { stamp, found, folders, entries: total }
    visits.set(dir, made)
    // A folder too recent to keep changes the store only when it replaces one kept there.
    if (stamp !== undefined || known?.stamp !== undefined) unsaved = true
    return made
  }
  return (store?: VisitStore): MaskWalk => {
    if (store && !loaded) {
      loaded = true
      if (visits.size === 0) visits = store.load() ?? visits
    }
    // Before the first stat: what changed after this instant, less the margin, is too recent to trust.
    since = Date.now() - racyMs
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
    for (const dir of visits.keys()) {
      if (seen.has(dir)) continue
      visits.delete(dir)
      unsaved = true
    }
    if (store && unsaved) {
      store.save(visits)
      unsaved = false
    }
    return { found, stopped }
  }
}
