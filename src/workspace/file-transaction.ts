import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import { constants, fchmodSync, fstatSync, linkSync, lstatSync, openSync, readdirSync, renameSync, rmdirSync, unlinkSync, writeSync } from "node:fs"
import { dirname, sep } from "node:path"
import { closeQuietly, inDir, locateForWrite, unlinkQuietly, NotUsable, OutsideRoot, readAllFd, stampOf, type CheckedDir, type Contains } from "./checked-fs.ts"
import { LockBusy, lockExclusive } from "./flock.ts"
import { fromErrno } from "./fs-error.ts"
import { keepOwner, type Owner } from "./keep-owner.ts"
import { Journal, tempNameFor, undoEntry, type JournalEntry } from "./journal.ts"
import { WorkspaceError } from "./workspace-error.ts"

/** A file as it was read: its bytes and mode, and the stamp used to notice a change since. */
export interface FileBefore {
  readonly bytes: Uint8Array
  /** Permission bits (0o7777). */
  readonly mode: number
  readonly size: number
  readonly mtimeMs: number | undefined
  /** Identity and version when read (`stampOf`): compared instead of the bytes when present. */
  readonly stamp?: string
}

/** The new state of a file: bytes and permission bits (absent: the default for a new file, the old ones otherwise). */
export interface FileAfter {
  readonly bytes: Uint8Array
  readonly mode?: number
  /** sha256 of `bytes` (hex), when the caller has it already. */
  readonly sha256?: string
}

/** New contents up to this size are hashed for the journal's check. */
const HASHED_UP_TO = 8 * 1024 * 1024

/** One path's change: absent `before` creates it, absent `after` removes it. */
export interface FileChange {
  /** Absolute path. */
  readonly path: string
  /** How messages name it (root-relative). */
  readonly display: string
  readonly before?: FileBefore
  readonly after?: FileAfter
}

export interface CommitOptions {
  /** The project root: empty folders left by removals are pruned up to (not including) it. */
  readonly root: string
  /** Where writes may land (real paths). Default: inside `root`. */
  readonly contains?: Contains
  /** The journal folder; without one a kill half way is not recovered at the next start. */
  readonly journalDir?: string
}

/** A file as the commit left it. */
export interface CommittedFile {
  /** Real absolute path. */
  readonly real: string
  readonly display: string
  /** `stampOf` the new file; undefined when removed. */
  readonly stamp?: string
  readonly mtimeMs?: number
  readonly size?: number
}

/** The file is not what the change was prepared against (or appeared, or is locked too long). */
export class ChangedOnDisk extends Data.TaggedError("ChangedOnDisk")<{ readonly display: string; readonly reason: "changed" | "appeared" | "locked" }> {}

/** Byte equality (native compare: files may be megabytes). */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a === b || (a.length === b.length && Buffer.compare(a, b) === 0)

/** The system calls a commit makes that can fail on a real disk; tests replace them to inject faults. */
export interface CommitOps {
  readonly writeNew: (path: PathLike, bytes: Uint8Array, mode: number | undefined, owner?: Owner) => void
  readonly rename: (from: PathLike, to: PathLike) => void
  readonly link: (from: PathLike, to: PathLike) => void
  readonly unlink: (path: PathLike) => void
  readonly chmod: (fd: number, mode: number) => void
}

export const realOps: CommitOps = {
  writeNew: (path, bytes, mode, owner) => {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode ?? 0o666)
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done)
      if (owner !== undefined) keepOwner(fd, owner)
      if (mode !== undefined) fchmodSync(fd, mode)
    } finally {
      closeQuietly(fd)
    }
  },
  rename: renameSync,
  link: linkSync,
  unlink: unlinkSync,
  chmod: fchmodSync,
}

interface Slot {
  readonly change: FileChange
  readonly dir: CheckedDir
  readonly name: string
  readonly real: string
  fd?: number
  ino?: bigint
  /** The existing file's owner, read under the lock. */
  owner?: Owner
  temp?: string
  tempIno?: bigint
  backup?: string
  backupIno?: bigint
  newSha?: string
  placed: boolean
}

/** A path as the file system takes it: a string, or the bytes of a name that is not UTF-8. */
type PathLike = string | Buffer

const inodeAt = (path: PathLike): bigint | undefined => {
  try {
    return lstatSync(path, { bigint: true }).ino
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined
    throw e
  }
}

/**
 * Applies a set of file changes all or nothing, even when the process is killed midway.
 *
 * 1. Each path is located through checked folders (never out of the root),
 *    each existing file opened without following a link and locked (flock,
 *    in path order), and compared with what was read (stamp or bytes); absent
 *    files must still be absent. Otherwise CONFLICT, nothing touched.
 * 2. A journal names the temp and backup files; new contents are written to
 *    temps beside their targets, old ones kept as hard-link backups when more
 *    than one step must happen.
 * 3. New contents go in first (rename over an old file; link for a new one,
 *    which fails if the name was taken), removals after, then mode changes.
 *    Any failure undoes the steps done, from the backups.
 * 4. Backups and the journal go; folders emptied by removals are pruned.
 *
 * A kill at any moment leaves each file old or new; the next start rolls an
 * unfinished change back from its journal (`recoverJournals`).
 */
export const commitSync = (changes: ReadonlyArray<FileChange>, options: CommitOptions, ops: CommitOps = realOps): Array<CommittedFile> => {
  const contains = options.contains ?? ((p: string) => p === options.root || p.startsWith(options.root + sep))
  const slots: Array<Slot> = []
  const createdDirs: Array<string> = []
  let journal: Journal | undefined
  let applying = false
  let committed = false
  try {
    for (const change of changes) {
      const located = locateForWrite(contains, change.path, { create: change.after !== undefined, created: createdDirs })
      slots.push({ change, ...located, placed: false })
    }
    // A fixed order, so two processes locking the same files cannot deadlock.
    for (const s of [...slots].sort((a, b) => (a.real < b.real ? -1 : a.real > b.real ? 1 : 0))) lockAndVerify(s)

    const writes = slots.filter((s) => s.change.after && (!s.change.before || !sameBytes(s.change.before.bytes, s.change.after.bytes)))
    const removals = slots.filter((s) => !s.change.after && s.change.before)
    const modeOnly = slots.filter(
      (s) => s.change.after && s.change.before && !writes.includes(s) && s.change.after.mode !== undefined && s.change.after.mode !== s.change.before.mode,
    )
    const undoable = writes.length + removals.length + modeOnly.length > 1
    for (const s of writes) {
      s.temp = tempNameFor(s.name)
      // Recovery undoes a target only while it still holds exactly what this change wrote.
      // (Large files are judged by inode alone: hashing 100 MiB would cost more than the whole write.)
      const after = s.change.after!
      s.newSha = after.sha256 ?? (after.bytes.length <= HASHED_UP_TO ? createHash("sha256").update(after.bytes).digest("hex") : undefined)
    }
    if (undoable) for (const s of [...writes, ...removals]) if (s.change.before) s.backup = tempNameFor(s.name)

    const entries = () =>
      slots
        .filter((s) => s.temp !== undefined || s.backup !== undefined)
        .map(
          (s): JournalEntry => ({
            dir: s.dir.real,
            name: s.name,
            existed: s.change.before !== undefined,
            ...(s.temp !== undefined ? { temp: s.temp } : {}),
            ...(s.tempIno !== undefined ? { tempIno: String(s.tempIno) } : {}),
            ...(s.newSha !== undefined ? { newSha: s.newSha } : {}),
            ...(s.backup !== undefined ? { backup: s.backup, backupIno: String(s.backupIno ?? s.ino) } : {}),
          }),
        )
    if (options.journalDir !== undefined && (writes.length > 0 || removals.length > 0)) journal = Journal.begin(options.journalDir, options.root, entries())

    for (const s of writes) {
      const after = s.change.after!
      const mode = after.mode ?? (s.change.before ? s.change.before.mode : undefined)
      ops.writeNew(inDir(s.dir, s.temp!), after.bytes, mode, s.owner)
      s.tempIno = inodeAt(inDir(s.dir, s.temp!))
    }
    for (const s of slots) {
      if (s.backup === undefined) continue
      try {
        ops.link(inDir(s.dir, s.name), inDir(s.dir, s.backup))
        if (inodeAt(inDir(s.dir, s.backup)) !== s.ino) throw new ChangedOnDisk({ display: s.change.display, reason: "changed" })
      } catch (e) {
        // A file system without hard links: the old bytes (checked under the lock) are copied instead.
        if (e instanceof ChangedOnDisk || !["EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "EXDEV"].includes((e as { code?: string }).code ?? "")) throw e
        ops.writeNew(inDir(s.dir, s.backup), s.change.before!.bytes, s.change.before!.mode)
      }
      s.backupIno = inodeAt(inDir(s.dir, s.backup))
    }
    journal?.ready(entries())

    applying = true
    for (const s of writes) {
      if (s.change.before) {
        // Still the file that was locked and checked?
        if (inodeAt(inDir(s.dir, s.name)) !== s.ino) throw new ChangedOnDisk({ display: s.change.display, reason: "changed" })
        ops.rename(inDir(s.dir, s.temp!), inDir(s.dir, s.name))
        s.placed = true
      } else {
        try {
          ops.link(inDir(s.dir, s.temp!), inDir(s.dir, s.name))
        } catch (e) {
          if ((e as { code?: string }).code === "EEXIST") throw new ChangedOnDisk({ display: s.change.display, reason: "appeared" })
          throw e
        }
        s.placed = true
        ops.unlink(inDir(s.dir, s.temp!))
      }
    }
    for (const s of removals) {
      if (inodeAt(inDir(s.dir, s.name)) !== s.ino) throw new ChangedOnDisk({ display: s.change.display, reason: "changed" })
      ops.unlink(inDir(s.dir, s.name))
      s.placed = true
    }
    for (const s of modeOnly) {
      ops.chmod(s.fd!, s.change.after!.mode!)
      s.placed = true
    }
    applying = false
    journal?.committed(entries())
    committed = true

    for (const s of slots) if (s.backup !== undefined) unlinkQuietly(inDir(s.dir, s.backup))
    journal?.finish()
    journal = undefined
    for (const s of removals) pruneEmptyParents(s, options.root, contains)
    return slots.map((s) => {
      if (!s.change.after) return { real: s.real, display: s.change.display }
      try {
        const st = lstatSync(inDir(s.dir, s.name), { bigint: true })
        return { real: s.real, display: s.change.display, stamp: stampOf(st), mtimeMs: Number(st.mtimeMs), size: Number(st.size) }
      } catch {
        return { real: s.real, display: s.change.display }
      }
    })
  } catch (error) {
    if (committed) throw error
    // Undo what was done, newest first; then nothing staged stays behind.
    const failed: Array<string> = []
    for (const s of [...slots].reverse()) {
      try {
        if (applying && s.placed && modeOnlyUndo(s, ops)) continue
        const done = s.placed
        undoEntry(s.dir, entryOf(s), "ready")
        if (done && s.backup === undefined && s.change.before && s.change.after) failed.push(s.change.display)
      } catch {
        failed.push(s.change.display)
      }
    }
    journal?.finish()
    for (const d of createdDirs.reverse()) {
      try {
        rmdirSync(d)
      } catch {
        // not empty (something else put a file there) or gone
      }
    }
    throw failed.length > 0 ? new RollbackFailed({ cause: error, files: failed }) : error
  } finally {
    for (const s of slots) {
      closeQuietly(s.fd)
      closeQuietly(s.dir.fd)
    }
  }
}

/** Undoing failed for some files after a failed commit: they may be left changed. */
export class RollbackFailed extends Data.TaggedError("RollbackFailed")<{ readonly cause: unknown; readonly files: ReadonlyArray<string> }> {}

const entryOf = (s: Slot): JournalEntry => ({
  dir: s.dir.real,
  name: s.name,
  existed: s.change.before !== undefined,
  ...(s.temp !== undefined ? { temp: s.temp } : {}),
  ...(s.tempIno !== undefined ? { tempIno: String(s.tempIno) } : {}),
  ...(s.backup !== undefined ? { backup: s.backup, backupIno: String(s.backupIno ?? s.ino) } : {}),
})

const modeOnlyUndo = (s: Slot, ops: CommitOps): boolean => {
  if (s.temp !== undefined || s.backup !== undefined || !s.change.before || !s.change.after || s.fd === undefined) return false
  ops.chmod(s.fd, s.change.before.mode)
  return true
}

const lockAndVerify = (s: Slot): void => {
  const at = inDir(s.dir, s.name)
  const before = s.change.before
  if (!before) {
    if (inodeAt(at) !== undefined) throw new ChangedOnDisk({ display: s.change.display, reason: "appeared" })
    return
  }
  let fd: number
  try {
    fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code === "ENOENT" || code === "ELOOP") throw new ChangedOnDisk({ display: s.change.display, reason: "changed" })
    throw e
  }
  s.fd = fd
  try {
    lockExclusive(fd)
  } catch (e) {
    if (e instanceof LockBusy) throw new ChangedOnDisk({ display: s.change.display, reason: "locked" })
    throw e
  }
  const st = fstatSync(fd, { bigint: true })
  s.ino = st.ino
  s.owner = { uid: Number(st.uid), gid: Number(st.gid) }
  const same =
    st.isFile() &&
    inodeAt(at) === st.ino &&
    (before.stamp !== undefined ? stampOf(st) === before.stamp : sameBytes(readAllFd(fd, Number(st.size)), before.bytes))
  if (!same) throw new ChangedOnDisk({ display: s.change.display, reason: "changed" })
}


// As git does: a folder a removal left empty goes too (never the root, never outside it).
const pruneEmptyParents = (s: Slot, root: string, contains: Contains) => {
  let d = s.dir.real
  while (d !== root && d.startsWith(root + sep) && contains(d)) {
    try {
      if (readdirSync(d).length > 0) return
      rmdirSync(d)
    } catch {
      return
    }
    d = dirname(d)
  }
}

/** The commit as an Effect whose failures say what a model can do about them. */
export const commitChanges = (
  changes: ReadonlyArray<FileChange>,
  options: CommitOptions,
  ops: CommitOps = realOps,
): Effect.Effect<Array<CommittedFile>, WorkspaceError> =>
  Effect.try({ try: () => commitSync(changes, options, ops), catch: (e) => commitFailure(e, changes) })

/** A commit failure in words; the single place these are put into words. */
export const commitFailure = (error: unknown, changes: ReadonlyArray<FileChange>): WorkspaceError => {
  if (error instanceof RollbackFailed) {
    const cause = commitFailure(error.cause, changes)
    return new WorkspaceError({
      reason: "failed",
      message: `${cause.message} Rolling back failed for: ${error.files.join(", ")} — these files may be left changed; check them.`,
    })
  }
  const every = changes.length > 1 ? " Nothing was changed." : " Nothing was written."
  const undone = changes.length > 1 ? " Nothing was changed (every step already done was rolled back)." : " Nothing was written."
  if (error instanceof ChangedOnDisk) {
    const why =
      error.reason === "appeared"
        ? `${error.display} was created by something else while this change was being prepared.`
        : error.reason === "locked"
          ? `${error.display} is being changed by another process (its lock was held too long).`
          : `${error.display} changed on disk while this change was being prepared.`
    return new WorkspaceError({ reason: "changed", message: `${why}${every} Read it again and redo the change.`, path: error.display })
  }
  if (error instanceof OutsideRoot) {
    const shown = changes.find((c) => c.path === error.path)?.display ?? error.path
    return new WorkspaceError({
      reason: "outside_root",
      message: `Access denied: '${shown}' leads outside the project root (through a symbolic link).${every}`,
      field: { name: "path", problem: "outside the project root" },
    })
  }
  if (error instanceof NotUsable) return new WorkspaceError({ reason: "not_usable", message: `${error.path}: ${error.reason}.${every}` })
  const e = error as { code?: string; path?: string; message?: string }
  const shown = describe(e.path, changes)
  const mapped = fromErrno(e.code, shown, e.message ?? String(error), changes.find((c) => c.display === shown)?.path ?? e.path)
  // The path goes along when it names one of the change's files (what the next step looks at).
  const path = mapped.path !== undefined && changes.some((c) => c.display === mapped.path) ? { path: mapped.path } : {}
  return new WorkspaceError({
    reason: mapped.reason,
    message: `${mapped.message}${undone}`,
    ...(mapped.field ? { field: mapped.field } : {}),
    ...path,
    ...(mapped.hints ? { hints: mapped.hints } : {}),
  })
}

/** The root-relative name of the file an error is about (its temp file counts). */
const describe = (p: string | undefined, changes: ReadonlyArray<FileChange>): string => {
  if (p === undefined) return changes.length === 1 ? changes[0]!.display : "a file of the change"
  const name = p.slice(p.lastIndexOf("/") + 1)
  const hit = changes.find((c) => {
    const base = c.path.slice(c.path.lastIndexOf("/") + 1)
    return name === base || name.startsWith(`.${base.slice(0, 200)}.anvil-tmp-`)
  })
  return hit ? hit.display : changes.length === 1 ? changes[0]!.display : name
}
