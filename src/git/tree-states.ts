import { Effect } from "effect"
import { firstNonUtf8Path, indexMarks } from "./index-file.ts"
import { blobId } from "./work-files.ts"
import { resolveRef } from "./refs.ts"
import { encodePath, isUtf8 } from "../workspace/path-bytes.ts"
import { isoGit } from "./iso-git.ts"
import type { GitError } from "./git-error.ts"
import type { Repository } from "./repository.ts"
import { refuseNonUtf8 } from "./work-tree-fs.ts"

/** A blob (or a submodule's commit) on one side (HEAD, index or working tree). */
export interface Side {
  readonly oid: string
  /** 0o100644, 0o100755, 0o120000 (symlink) or 0o160000 (a submodule: `oid` is its commit). */
  readonly mode: number
}

/** The mode of a submodule entry (a "gitlink"). */
export const GITLINK = 0o160000

/** The working-tree mode given to a repository nested in the working tree that is no submodule (its path ends in "/"). */
export const EMBEDDED = 0o040000

/** One path across HEAD, the index (stage) and the working tree. */
export interface PathState {
  /** POSIX, relative to the repository top. */
  readonly path: string
  readonly head?: Side
  readonly stage?: Side
  /**
   * In the working tree. `oid` (of the content git would store) is computed
   * only for tracked paths (index entry present). `sizeChanged`: its size is
   * not the one the index recorded, which git status reports as a
   * modification without comparing contents (a CRLF checkout of an LF blob).
   */
  readonly workdir?: {
    readonly mode: number
    readonly oid?: string
    readonly sizeChanged?: true
    /** A submodule's working tree has changes of its own (tracked ones: modified; untracked files: untracked). */
    readonly dirty?: { readonly modified: boolean; readonly untracked: boolean }
  }
  /** Added with `git add -N`: tracked, but its (empty) index entry stages nothing, so `stage` is left out. */
  readonly intentToAdd?: true
}

export interface Snapshot {
  /** Every path present on at least one side (ignored untracked files left out), sorted bytewise. */
  readonly states: ReadonlyArray<PathState>
  /** Folders holding at least one index entry (untracked folders are shown collapsed only when not among them). */
  readonly trackedDirs: ReadonlySet<string>
}

export interface SnapshotOptions {
  /** Include the working tree (false: HEAD and index only, for staged diffs and commits). */
  readonly workdir: boolean
  /** Limit the walk to these repository-relative paths (files or folders); empty or absent means everything. */
  readonly prefixes?: ReadonlyArray<string>
}

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff

/**
 * git's sort order for paths: by UTF-8 bytes, which is code point order.
 * Compared on the strings' code units, which follow it (no encoding per
 * comparison: a status of thousands of paths sorts hundreds of thousands of
 * pairs); where the first difference is a surrogate (an astral character, or
 * a lone one that UTF-8 writes as U+FFFD) the bytes themselves are compared.
 */
export const compareBytes = (a: string, b: string): number => {
  const n = a.length < b.length ? a.length : b.length
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    return isSurrogate(x) || isSurrogate(y) ? Buffer.compare(encodePath(a), encodePath(b)) : x - y
  }
  return a.length - b.length
}

/** Sorts `items` by `key` in git's path order, unless they already are (git's own output usually is). */
export const sortByPath = <T>(items: Array<T>, key: (item: T) => string): Array<T> => {
  for (let i = 1; i < items.length; i++) {
    if (compareBytes(key(items[i - 1]!), key(items[i]!)) > 0) return items.sort((x, y) => compareBytes(key(x), key(y)))
  }
  return items
}

const worthWalking = (filepath: string, prefixes: ReadonlyArray<string>): boolean =>
  filepath === "." ||
  prefixes.length === 0 ||
  prefixes.some((p) => p === "" || p === "." || filepath === p || filepath.startsWith(`${p}/`) || p.startsWith(`${filepath}/`))

const normalMode = (mode: number): number => {
  if ((mode & 0o170000) === 0o120000) return 0o120000
  return mode & 0o111 ? 0o100755 : 0o100644
}

interface Stat {
  readonly mode: number
  readonly mtimeSeconds: number
  readonly ctimeSeconds: number
  readonly uid: number
  readonly gid: number
  readonly ino: number
  readonly size: number
}

type Entry = {
  type: () => Promise<string>
  mode: () => Promise<number>
  oid: () => Promise<string>
  stat: () => Promise<Stat>
} | null

/**
 * Whether a working-tree file certainly still has the content its index
 * entry records: the same stat data (as git and isomorphic-git compare it),
 * and not "racily clean" — changed within the second the index was written,
 * which the stat cannot tell apart (git's racy-git rule).
 */
const statClean = (index: Stat, work: Stat, fileMode: boolean, indexWritten: number): boolean =>
  (!fileMode || index.mode === work.mode) &&
  index.mtimeSeconds === work.mtimeSeconds &&
  index.ctimeSeconds === work.ctimeSeconds &&
  index.uid === work.uid &&
  index.gid === work.gid &&
  index.ino === work.ino &&
  index.size === work.size &&
  work.mtimeSeconds < indexWritten

/**
 * Reads HEAD, the index and (optionally) the working tree in one walk, as git
 * status does. Untracked paths that the exclude rules hide are left out (and
 * ignored folders are not entered); a submodule is one entry (its commit, its
 * own changes read recursively), a repository nested without being one an
 * untracked "dir/"; special files are skipped. Working-tree content is what
 * git would store (line endings converted). The index is never written (no
 * stat refresh), so reading stays read-only.
 */
export const readSnapshot = (repo: Repository, options: SnapshotOptions): Effect.Effect<Snapshot, GitError> =>
  repo.call("status", () => snapshotOf(repo, options))

/** Whether two sides (either may be absent) differ in content or, when it counts, mode. */
const differ = (a: Side | undefined, b: Side | undefined, fileMode: boolean): boolean =>
  a === undefined || b === undefined ? a !== b : a.oid !== b.oid || (fileMode || (a.mode & 0o170000) !== (b.mode & 0o170000) ? a.mode !== b.mode : false)

/** Whether a submodule shows new commits, modified content or untracked files in its working tree (what git status reports of it). */
export const submoduleChanged = (stage: Side, work: NonNullable<PathState["workdir"]>): boolean =>
  work.oid !== stage.oid || work.dirty?.modified === true || work.dirty?.untracked === true

/** What a repository's snapshot holds beyond a clean checkout: tracked changes (staged or not) and untracked files. */
const dirtiness = (snapshot: Snapshot, fileMode: boolean): { modified: boolean; untracked: boolean } => {
  let modified = false
  let untracked = false
  for (const s of snapshot.states) {
    if (s.intentToAdd) modified = true
    else if (!s.head && !s.stage) untracked ||= s.workdir !== undefined
    else if (differ(s.head, s.stage, fileMode) || !s.workdir) modified = true
    else if (s.stage!.mode === GITLINK) {
      // A nested submodule with nothing but untracked files counts as untracked content, as git counts it.
      if (s.workdir.oid !== s.stage!.oid || s.workdir.dirty?.modified) modified = true
      else untracked ||= s.workdir.dirty?.untracked === true
    } else if (s.workdir.sizeChanged || differ(s.stage, { oid: s.workdir.oid ?? "", mode: s.workdir.mode }, fileMode)) modified = true
    if (modified && untracked) break
  }
  return { modified, untracked }
}

/**
 * The working-tree side of a submodule: its checked-out commit and whether
 * its own tree has changes (read recursively, as `git status
 * --ignore-submodules=none` does); absent when its folder is gone, the
 * recorded commit when it is not checked out.
 */
const submoduleWork = async (repo: Repository, path: string, recorded: Side): Promise<PathState["workdir"]> => {
  const sub = repo.submodule(path)
  if (sub === "absent") return undefined
  if (sub === "empty") return { mode: GITLINK, oid: recorded.oid }
  const snapshot = await snapshotOf(sub, { workdir: true })
  const dirty = dirtiness(snapshot, await fileModeMatters(sub))
  return { mode: GITLINK, oid: resolveRef(sub, "HEAD") ?? recorded.oid, ...(dirty.modified || dirty.untracked ? { dirty } : {}) }
}

const lossy = new TextDecoder("utf-8")

/**
 * Refuses the entry of HEAD's tree that isomorphic-git named `filepath` when
 * its bytes are not UTF-8 (decoded to U+FFFD, it would name no file git
 * knows). The index and the disk are checked elsewhere; a name left only in
 * HEAD (a staged deletion) is checked here, from the raw tree of its folder.
 */
const refuseLossyHeadName = async (repo: Repository, head: string, filepath: string): Promise<void> => {
  const slash = filepath.lastIndexOf("/")
  const folder = filepath.slice(0, Math.max(slash, 0))
  const base = filepath.slice(slash + 1)
  const git = await isoGit()
  const at = { fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache }
  const tree = await git.readTree({ ...at, oid: head, ...(folder === "" ? {} : { filepath: folder }) })
  const { object } = await git.readObject({ ...at, oid: tree.oid, format: "content" })
  if (!(object instanceof Uint8Array)) return
  const bytes = object
  // Entries: "<mode> <name>\0<hash>", the hash as long as the commit id's bytes.
  for (let i = 0; i < bytes.length; ) {
    const nul = bytes.indexOf(0, i)
    if (nul < 0) return
    const name = bytes.subarray(bytes.indexOf(0x20, i) + 1, nul)
    if (!isUtf8(name) && lossy.decode(name) === base) refuseNonUtf8(Buffer.concat([encodePath(folder === "" ? "" : `${folder}/`), name]))
    i = nul + 1 + head.length / 2
  }
}

const snapshotOf = async (repo: Repository, options: SnapshotOptions): Promise<Snapshot> => {
  const git = await isoGit()
  const prefixes = (options.prefixes ?? []).map((p) => p.replace(/\/+$/, ""))
  const states: Array<PathState> = []
  const trackedDirs = new Set<string>()
  const trees = options.workdir ? [git.TREE({ ref: "HEAD" }), git.STAGE(), git.WORKDIR({ refresh: false })] : [git.TREE({ ref: "HEAD" }), git.STAGE()]
  const fileMode = await fileModeMatters(repo)
  const indexWritten = await repo.fs.promises.stat(repo.indexFile).then(
    (st) => Math.floor(st.mtimeMs / 1000),
    () => 0,
  )
  const rules = repo.workTree()
  const indexBytes = await repo.fs.promises.readFile(repo.indexFile).then((b) => new Uint8Array(b), () => new Uint8Array(0))
  const notUtf8 = firstNonUtf8Path(indexBytes)
  if (notUtf8 !== undefined) refuseNonUtf8(notUtf8)
  const marks = indexMarks(indexBytes)
  const headOid = await git.resolveRef({ fs: repo.fs, gitdir: repo.gitdir, ref: "HEAD" }).catch(() => undefined)
  const headExists = headOid !== undefined
  /** The blob id of a working-tree file's content as git would store it (a symlink's is its target's). */
  const workOid = async (filepath: string, mode: number, entry: NonNullable<Entry>, indexed: Side | undefined): Promise<string> => {
    if (mode === 0o120000) return entry.oid()
    const raw = await repo.fs.promises.readFile(`${repo.dir}/${filepath}`).then((b) => new Uint8Array(b))
    return blobId(await rules.stored(filepath, raw, () => (indexed ? readBlobBytes(repo, indexed.oid) : Promise.resolve(undefined))))
  }
  await git.walk({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    trees: headExists ? trees : trees.slice(1),
    map: async (filepath: string, entries: Array<Entry>) => {
      const [head, stage, workdir] = headExists ? entries : [null, ...entries]
      if (filepath === ".") return undefined
      if (!worthWalking(filepath, prefixes)) return null
      // git never lists a .git folder (or file), at the top or in a nested repository.
      if (filepath === ".git" || filepath.endsWith("/.git")) return null
      const [headType, stageType, workType] = await Promise.all([head?.type(), stage?.type(), workdir?.type()])
      if (head && headOid !== undefined && filepath.includes("\uFFFD")) await refuseLossyHeadName(repo, headOid, filepath)
      if (!head && !stage && workdir && rules.excluded(filepath, workType === "tree")) return null
      if (!head && !stage && workType === "tree" && options.workdir && repo.submodule(filepath) !== "empty") {
        // Another repository inside this one (not a submodule yet): git lists it as one untracked folder, never its files.
        states.push({ path: `${filepath}/`, workdir: { mode: EMBEDDED } })
        return null
      }
      if (headType === "commit" || stageType === "commit") {
        const link = async (e: Entry, type: string | undefined): Promise<Side | undefined> =>
          e && type === "commit" ? { oid: await e.oid(), mode: GITLINK } : e && type === "blob" ? { oid: await e.oid(), mode: normalMode(await e.mode()) } : undefined
        const headSide = await link(head ?? null, headType)
        const stageSide = await link(stage ?? null, stageType)
        const work = options.workdir && stageSide?.mode === GITLINK ? await submoduleWork(repo, filepath, stageSide) : undefined
        states.push({ path: filepath, ...(headSide ? { head: headSide } : {}), ...(stageSide ? { stage: stageSide } : {}), ...(work ? { workdir: work } : {}) })
        // Its files belong to the submodule's own repository.
        return null
      }
      if (stageType === "tree") trackedDirs.add(filepath)
      const blob = headType === "blob" || stageType === "blob" || workType === "blob"
      if (!blob) return undefined
      // Below a named file prefix only; a folder's own entry is not a file.
      if (prefixes.length > 0 && !prefixes.some((p) => p === "" || p === "." || filepath === p || filepath.startsWith(`${p}/`))) {
        return undefined
      }
      const side = async (e: Entry, type: string | undefined): Promise<Side | undefined> =>
        e && type === "blob" ? { oid: await e.oid(), mode: normalMode(await e.mode()) } : undefined
      const headSide = await side(head ?? null, headType)
      const stageSide = await side(stage ?? null, stageType)
      let work: PathState["workdir"]
      const intentToAdd = stageSide !== undefined && marks.intentToAdd.has(filepath)
      if (stageSide && (marks.skipWorktree.has(filepath) || marks.assumeUnchanged.has(filepath))) {
        // Outside the sparse checkout, or assumed unchanged: git neither looks at nor reports its work-tree file.
        if (options.workdir) work = { mode: stageSide.mode, oid: stageSide.oid }
      } else if (workdir && workType === "blob" && intentToAdd) {
        const mode = normalMode(await workdir.mode())
        // Its index entry is an empty placeholder, not a copy to compare line endings with.
        work = { mode, oid: await workOid(filepath, mode, workdir, undefined) }
      } else if (workdir && workType === "blob") {
        const mode = normalMode(await workdir.mode())
        if (!stageSide) work = { mode }
        else {
          const indexStat = await stage!.stat()
          const workStat = await workdir.stat()
          // Unchanged stat data: the index's blob id stands, no need to read and hash the file.
          if (statClean(indexStat, workStat, fileMode, indexWritten)) work = { mode, oid: stageSide.oid }
          else {
            const oid = await workOid(filepath, mode, workdir, stageSide)
            // git takes a new size as a change without reading (unless the index recorded none: 0).
            const sizeChanged = indexStat.size !== 0 && indexStat.size !== workStat.size
            work = { mode, oid, ...(sizeChanged ? { sizeChanged: true as const } : {}) }
          }
        }
      }
      states.push({
        path: filepath,
        ...(headSide ? { head: headSide } : {}),
        ...(stageSide && !intentToAdd ? { stage: stageSide } : {}),
        ...(work ? { workdir: work } : {}),
        ...(intentToAdd ? { intentToAdd: true as const } : {}),
      })
      return undefined
    },
  })
  states.sort((a, b) => compareBytes(a.path, b.path))
  return { states, trackedDirs }
}

/** Reads a blob's bytes by id. */
export const readBlobBytes = (repo: Repository, oid: string): Promise<Uint8Array> =>
  isoGit().then((git) => git.readBlob({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, oid, cache: repo.cache })).then((r) => r.blob)

/** Whether core.filemode is on (the executable bit counts as a change); git's default is true. */
export const fileModeMatters = (repo: Repository): Promise<boolean> =>
  isoGit()
    .then((git) => git.getConfig({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, path: "core.filemode" }))
    .then((v: unknown) => v !== false && v !== "false")
    .catch(() => true)
