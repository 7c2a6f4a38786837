import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync, type Stats } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { showPath } from "./policy.ts"
import type { SandboxRefusal } from "./diagnose.ts"

/**
 * Git repositories a confined command makes or changes *inside* the project
 * (`git init sub`, then `core.fsmonitor = ./x.sh` in `sub/.git/config`, or a
 * hook in `sub/.git/hooks/`) run code later, outside the sandbox: when the
 * user's git (or git's submodule recursion) works there. The project's own
 * `.git` is held by mounts; a nested one cannot be (it may not exist yet), so
 * after each confined command the tree is walked for `.git` entries and what
 * makes git run code — the git folder's `config`, `config.worktree`,
 * `commondir`, its hooks, a `.git` file or link naming a git folder — is
 * compared with what was there before. A new or changed config that sets
 * anything beyond plain repository, remote, branch and identity settings is
 * put back (removed when it is new); a new or changed hook is removed; a
 * `.git` file or link naming a git folder with either is removed. Each is
 * reported as a `protected` refusal. A `git init`, `git remote add` or commit
 * in a nested repository is left alone.
 */

/** Settings of a git config that never make git run a program (lowercased; `*` is any subsection). */
const SAFE_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath)$/,
  /^remote\..+\.(url|pushurl|fetch|push|tagopt|prune|mirror)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote|description)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^extensions\.objectformat$/,
  /^submodule\..+\.(url|active|branch)$/,
  /^(pull|push|fetch)\.(rebase|ff|default|prune|autosetupremote)$/,
  /^(advice|color|i18n)\..+$/,
  /^lfs\.repositoryformatversion$/,
]

/** At most this many folders are looked at (a bigger tree is checked that far, and the report says so). */
const MAX_DIRS = 200_000
/** Files larger than this are not kept for putting back (a hook or config never is). */
const MAX_KEPT = 1 << 20

/**
 * A change made within this long before a walk looked may leave a stamp
 * that a later change within the same clock tick (or the same second, on a
 * coarse file system) repeats exactly: what is that recent is looked at again
 * next time instead of trusted (as git does with racily clean files).
 */
const RACY_MS = 2_500

/** One file (or link, or folder) that makes git run code, as it was. */
interface Entry {
  readonly kind: "file" | "dir" | "link" | "other"
  /** Undefined when too recent to trust (see RACY_MS): always compared by content. */
  readonly stamp: string | undefined
  /** The content of a small file, and its permissions, to put back. */
  readonly content?: Buffer
  readonly mode?: number
  /** Where a link points (kept with the content). */
  readonly target?: string
  /** The `.git` file or link through which this entry of another git folder was reached. */
  readonly via?: string
  /** A link inside a git folder (git writes through those: COMMIT_EDITMSG, logs/HEAD…), and where it points. */
  readonly gitLink?: string
}

/** A folder as a walk saw it: its stamp, its subfolders and whether it holds a `.git`. */
export interface Folder {
  /** Undefined when too recent to trust (see RACY_MS): read again by the next walk. */
  readonly stamp: string | undefined
  readonly subdirs: ReadonlyArray<string>
  readonly git: boolean
}

/** What a walk found: the entries by path, the folders, and whether it stopped at MAX_DIRS. */
export interface NestedGitSnapshot {
  readonly entries: ReadonlyMap<string, Entry>
  readonly folders: ReadonlyMap<string, Folder>
  readonly partial: boolean
  /** How many folders were read rather than taken from the previous snapshot (0: the tree's shape is what it was). */
  readonly read: number
}

/** A stamp from lstat, or undefined when the change it shows is too recent to trust: after `since` (already less the margin). */
const stampOf = (s: Stats, since: number, text: string): string | undefined => (s.ctimeMs >= since ? undefined : text)

const entryOf = (path: string, keep: boolean, since: number): Entry | undefined => {
  let s: Stats
  try {
    s = lstatSync(path)
  } catch {
    return undefined
  }
  const kind = s.isSymbolicLink() ? "link" : s.isFile() ? "file" : s.isDirectory() ? "dir" : "other"
  // ctime cannot be set by the command: any write, rename or chmod moves it.
  const stamp = stampOf(s, since, `${kind}:${s.ino}:${s.size}:${s.ctimeMs}:${s.mtimeMs}`)
  if (keep && kind === "link") {
    try {
      return { kind, stamp, target: readlinkSync(path) }
    } catch {
      // gone meanwhile
    }
  }
  if (keep && kind === "file" && s.size <= MAX_KEPT) {
    try {
      return { kind, stamp, content: readFileSync(path), mode: s.mode & 0o7777 }
    } catch {
      // unreadable: nothing to put back
    }
  }
  return { kind, stamp }
}

/** The paths that make git run code for one git folder (`gitDir`, a `.git` folder or another named by a `.git` file). */
const gitCodePaths = (gitDir: string): Array<string> => {
  const out = [join(gitDir, "config"), join(gitDir, "config.worktree"), join(gitDir, "commondir"), join(gitDir, "hooks")]
  try {
    for (const name of readdirSync(join(gitDir, "hooks"))) if (!name.endsWith(".sample")) out.push(join(gitDir, "hooks", name))
  } catch {
    // no hooks folder (or a link, looked at as an entry)
  }
  return out
}

/** At most this many entries of one git folder are looked at for links (object stores are never walked). */
const MAX_GIT_ENTRIES = 50_000

/**
 * The symbolic links inside a git folder, not following any. git follows a
 * link when it writes many of its files in place (COMMIT_EDITMSG, MERGE_MSG,
 * the reflogs it appends to), so a link a command plants there makes the
 * user's next commit write outside the project (~/.bashrc).
 */
const linksIn = (gitDir: string): Array<string> => {
  const out: Array<string> = []
  const stack = [gitDir]
  let seen = 0
  while (stack.length > 0 && seen < MAX_GIT_ENTRIES) {
    const dir = stack.pop()!
    let list
    try {
      list = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const d of list) {
      seen++
      const p = join(dir, d.name)
      if (d.isSymbolicLink()) out.push(p)
      // Object stores (a submodule's under modules/, git-lfs's) can hold many thousands of files; git writes them by rename.
      else if (d.isDirectory() && d.name !== "objects" && d.name !== "lfs") stack.push(p)
    }
  }
  return out
}

/** The git folder a `.git` file (`gitdir: …`) or link names; undefined when it names none. */
const pointedGitDir = (dotGit: string, kind: Entry["kind"]): string | undefined => {
  try {
    if (kind === "link") return resolve(dirname(dotGit), readlinkSync(dotGit))
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
    return m ? resolve(dirname(dotGit), m[1]!.trim()) : undefined
  } catch {
    return undefined
  }
}

/**
 * Walks `root` (not following links, not into git folders, nor the project's
 * own `.git`) for nested `.git` entries and records what makes git run code.
 * `keep`: also keep small files' content, to put back after the next command.
 * A folder whose stamp is what `previous` saw is not read again: any entry
 * made, removed or renamed in it moves its ctime, which no command can set
 * (`touch -d`, `cp -a`, `tar` and `mv` keep mtimes, never ctimes; the inode
 * number catches a folder put in another's place). So a look at every folder
 * costs a stat instead of a read of its entries; `previous` may come from
 * another anvil process (see nested-git-store.ts).
 */
export const snapshotNestedGit = (
  root: string,
  keep: boolean,
  previous?: { readonly folders: ReadonlyMap<string, Folder> },
  /** How recent a change may be and still be trusted by its stamp (tests shorten it). */
  racyMs: number = RACY_MS,
  /** Look at the root's own `.git` too: it had none when the command started, so no mount protects one it makes. */
  withRoot = false,
): NestedGitSnapshot => {
  // Before the first stat: anything that changed after this instant, less the margin, is too recent to trust.
  const since = Date.now() - racyMs
  const entries = new Map<string, Entry>()
  const folders = new Map<string, Folder>()
  let read = 0
  const add = (p: string, via?: string) => {
    const e = entryOf(p, keep, since)
    // Reached both ways (a `.git` file naming a nested repository's git folder): as part of that repository.
    if (e && (!entries.has(p) || (via === undefined && entries.get(p)!.via !== undefined))) entries.set(p, via === undefined ? e : { ...e, via })
  }
  const addLinks = (gitDir: string) => {
    for (const p of linksIn(gitDir)) {
      const e = entryOf(p, keep, since)
      if (!e) continue
      let target = ""
      try {
        target = readlinkSync(p)
      } catch {
        // gone meanwhile
      }
      entries.set(p, { ...e, gitLink: target })
    }
  }
  const stack = [root]
  while (stack.length > 0) {
    if (folders.size >= MAX_DIRS) return { entries, folders, partial: true, read: read + 1 }
    const dir = stack.pop()!
    let folder: Folder
    try {
      const s = lstatSync(dir)
      const stamp = stampOf(s, since, `${s.ino}:${s.ctimeMs}:${s.mtimeMs}`)
      const seen = previous?.folders.get(dir)
      if (stamp !== undefined && seen?.stamp === stamp) folder = seen
      else {
        const list = readdirSync(dir, { withFileTypes: true })
        folder = { stamp, subdirs: list.filter((d) => d.isDirectory() && d.name !== ".git").map((d) => d.name), git: list.some((d) => d.name === ".git") }
        read++
      }
    } catch {
      continue
    }
    folders.set(dir, folder)
    for (const name of folder.subdirs) stack.push(join(dir, name))
    if (!folder.git) continue
    const p = join(dir, ".git")
    if (dir === root && !withRoot) {
      // The project's own git folder: its hooks and config are held by mounts, the rest is writable.
      if (lstatSync(p, { throwIfNoEntry: false })?.isDirectory()) addLinks(p)
      continue
    }
    add(p)
    const kind = entries.get(p)?.kind
    if (kind === "dir") {
      for (const q of gitCodePaths(p)) add(q)
      addLinks(p)
    } else if (kind === "file" || kind === "link") {
      const target = pointedGitDir(p, kind)
      if (target) for (const q of gitCodePaths(target)) add(q, p)
      if (target && (target === root || target.startsWith(`${root}/`))) addLinks(target)
    }
  }
  // A folder of `previous` no longer there also changes the shape.
  return { entries, folders, partial: false, read: read + (previous && previous.folders.size !== folders.size ? 1 : 0) }
}

/** Why a config's text makes git run code: the first key that is not plain, or a line that is not plain. */
export const unsafeGitConfig = (text: string): string | undefined => {
  let section = ""
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    // Only the plain forms are read; anything else (a key after a header, a continued line) counts as not plain.
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]\s*(?:[#;].*)?$/.exec(line)
    if (header) {
      section = `${header[1]!}${header[2] !== undefined ? `.${header[2]}` : ""}`.toLowerCase()
      continue
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(=.*)?$/.exec(line)
    if (!entry || section === "" || line.endsWith("\\")) return `the line '${line.slice(0, 60)}'`
    const key = `${section}.${entry[1]!.toLowerCase()}`
    if (!SAFE_KEYS.some((k) => k.test(key))) return key
  }
  return undefined
}

/** Whether a git folder named by a `.git` file or link has a hook or config that runs code (judged by content). */
const unsafeGitDir = (gitDir: string): string | undefined => {
  for (const p of gitCodePaths(gitDir)) {
    const e = entryOf(p, false, 0)
    if (!e) continue
    if (p.endsWith("/commondir")) return "commondir"
    if (p.endsWith("/config") || p.endsWith("/config.worktree")) {
      if (e.kind !== "file") return p
      try {
        const why = unsafeGitConfig(readFileSync(p, "utf8"))
        if (why) return why
      } catch {
        return p
      }
    } else if (!p.endsWith("/hooks") || e.kind === "link") return `hook ${p}`
  }
  return undefined
}

/** What is wrong with a new or changed entry, or undefined when it may stay. */
const judge = (path: string, now: Entry): string | undefined => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  if (now.gitLink !== undefined && name !== ".git" && name !== "hooks") {
    return `it is a link in a git folder (to ${now.gitLink}), which git writes through (COMMIT_EDITMSG, its logs)`
  }
  if (name === ".git") {
    if (now.kind === "dir") return undefined
    const target = pointedGitDir(path, now.kind)
    const why = target ? unsafeGitDir(target) : undefined
    return why ? `it names a git folder whose ${why} runs code` : undefined
  }
  if (name === "config" || name === "config.worktree") {
    if (now.kind !== "file") return "it is not a plain file"
    try {
      const why = unsafeGitConfig(readFileSync(path, "utf8"))
      return why ? `it ${why.startsWith("the line") ? "has" : "sets"} ${why}` : undefined
    } catch {
      return "it cannot be read"
    }
  }
  if (name === "commondir") return "it points git at another folder's config and hooks"
  if (name === "hooks") return now.kind === "link" ? "it links the hooks elsewhere" : undefined
  return "git runs it as a hook"
}

/**
 * Whether an entry is as it was: the same stamp, or, where a stamp is too
 * recent to trust, the same kind, content and permissions as kept before.
 */
const unchanged = (path: string, before: Entry | undefined, now: Entry): boolean => {
  if (!before) return false
  if (before.stamp !== undefined && now.stamp !== undefined) return before.stamp === now.stamp
  if (before.kind !== now.kind) return false
  if (now.kind === "dir") return true // what is in it is looked at one by one
  const again = entryOf(path, true, 0)
  if (now.kind === "link") return before.target !== undefined && again?.target === before.target
  if (now.kind !== "file" || before.content === undefined) return false
  return again?.content !== undefined && again.mode === before.mode && again.content.equals(before.content)
}

/** Puts `path` back as it was (`before`), or removes it when it is new or cannot be put back. */
const putBack = (path: string, before: Entry | undefined): void => {
  rmSync(path, { recursive: true, force: true })
  if (before?.gitLink) return symlinkSync(before.gitLink, path)
  if (before?.content === undefined) return
  writeFileSync(path, before.content)
  chmodSync(path, before.mode ?? 0o644)
}

/**
 * After a confined command: what changed since `before` among the nested git
 * entries, undone where it would run code. Returns the refusals and the
 * snapshot to compare the next command with.
 */
export const undoNestedGit = (
  root: string,
  before: NestedGitSnapshot,
  /** Say when the tree was too big to walk whole (once per session is enough). */
  sayPartial: boolean,
  /**
   * Whether the command could write `path` (the sandbox's writable places): a change elsewhere — in your other
   * repository that a `.git` file of the project names — is not the command's, and is left alone.
   */
  commandMayWrite: (path: string) => boolean = () => true,
  racyMs: number = RACY_MS,
  /** The root had no `.git` when the command started: one the command made is judged like a nested one. */
  withRoot = false,
): { readonly refusals: ReadonlyArray<SandboxRefusal>; readonly after: NestedGitSnapshot } => {
  const now = snapshotNestedGit(root, false, before, racyMs, withRoot)
  const refusals: Array<SandboxRefusal> = []
  const changed = [...now.entries].filter(([p, e]) => !unchanged(p, before.entries.get(p), e) && commandMayWrite(p))
  // Outermost first: a removed `.git` takes what is under it along; what a `.git` file names comes after that file.
  changed.sort(([a, x], [b, y]) => (x.via === undefined ? 0 : 1) - (y.via === undefined ? 0 : 1) || a.length - b.length)
  const undone: Array<string> = []
  for (const [path, entry] of changed) {
    // What a removed `.git` file named is not the command's to lose (it may be the user's repository elsewhere).
    if (undone.some((u) => path.startsWith(`${u}/`) || entry.via === u)) continue
    const why = judge(path, entry)
    if (!why) continue
    const old = before.entries.get(path)
    try {
      putBack(path, old)
    } catch {
      // could not be undone: still reported
    }
    undone.push(path)
    const shown = showPath(root, path)
    refusals.push({
      kind: "protected",
      subject: shown,
      message: `The sandbox ${old?.content !== undefined || old?.gitLink ? "put back" : "removed"} ${shown}, which the command ${old ? "changed" : "made"}: ${why}, and git would ${entry.gitLink !== undefined ? "write there" : "run that code"} outside the sandbox when it works in that repository. Make such a change with sandbox: false (the user is asked) if it is really wanted.`,
    })
  }
  // The next command is compared with what is there now, with contents to put back: those of entries
  // unchanged are the ones kept already; the rest are read again (the whole tree once something was undone).
  const again = new Set(changed.map(([p]) => p))
  const after: NestedGitSnapshot =
    undone.length > 0
      ? snapshotNestedGit(root, true, now, racyMs, withRoot)
      : { ...now, entries: new Map([...now.entries].map(([p, e]) => [p, again.has(p) ? (entryOf(p, true, Date.now() - racyMs) ?? e) : (before.entries.get(p) ?? e)])) }
  if (now.partial && sayPartial) {
    refusals.push({ kind: "protected", message: `The project has more than ${MAX_DIRS} folders; git repositories the command made were looked for in the first ${MAX_DIRS} only.` })
  }
  return { refusals, after }
}
