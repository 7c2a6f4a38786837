import {
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs"
import { join } from "node:path"
import { closeQuietly, inDir, unlinkQuietly, openCheckedDir, readAllFd, type CheckedDir, type Contains } from "./checked-fs.ts"
import { lockExclusive, tryLockExclusive } from "./flock.ts"

/**
 * The journal of a change to files in progress, one JSON file per
 * change in `.anvil/journal/`. It names, before anything is created, the temp
 * and backup files the change will make ("staging"), then, once they exist,
 * their inodes ("ready"): from then on targets are replaced. The owner holds
 * an flock on it while it works and deletes it when done, so a journal that
 * nobody holds at start belongs to a process that died half way: `recover`
 * puts every file back as it was before the change and removes the temps.
 *
 * A journal is only trusted as far as it is checked: folders must lie inside
 * the root, names must be anvil temp names, and a target is only touched when
 * it is still the very file the change put there (same inode, same content).
 */

/** One file of a change. */
export interface JournalEntry {
  /** Real absolute path of the folder holding the file. */
  readonly dir: string
  readonly name: string
  /** Whether the file existed before the change. */
  readonly existed: boolean
  /** The staged new content (a temp name in `dir`), when the file gets new content. */
  readonly temp?: string
  readonly tempIno?: string
  /** sha256 of the new content. */
  readonly newSha?: string
  /** A hard link to the old content (a temp name in `dir`), when the change must be undoable. */
  readonly backup?: string
  readonly backupIno?: string
}

/**
 * staging: temps and backups named, maybe not all made; targets untouched.
 * ready: every temp and backup made (inodes recorded); targets being replaced.
 * committed: every target replaced; only leftovers remain to remove.
 */
export type JournalState = "staging" | "ready" | "committed"

interface JournalDoc {
  readonly version: 1
  readonly root: string
  readonly pid: number
  readonly state: JournalState
  readonly entries: ReadonlyArray<JournalEntry>
}

/** Temp names anvil makes: `.<name>.anvil-tmp-<pid>-<random>`. */
export const TEMP_NAME = /^\..*\.anvil-tmp-\d+-[0-9a-z]+$/s

/** A fresh temp name for a file called `name` (kept under the 255-byte name limit). */
export const tempNameFor = (name: string): string => {
  let base = name
  while (Buffer.byteLength(base) > 200) base = base.slice(0, -1)
  return `.${base}.anvil-tmp-${process.pid}-${Math.random().toString(36).slice(2, 10) || "0"}`
}

const JOURNAL_NAME = /^\d+-[0-9a-z]+\.json$/
const PENDING_NAME = /^\.\d+-[0-9a-z]+\.json\.tmp$/

/** A journal this process holds while it changes files. */
export class Journal {
  private constructor(
    private readonly fd: number,
    readonly file: string,
    private readonly root: string,
  ) {}

  /** Creates and locks a journal in `dir` (made if missing) for a change about to start. */
  static begin(dir: string, root: string, entries: ReadonlyArray<JournalEntry>): Journal {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const id = `${process.pid}-${Math.random().toString(36).slice(2, 10) || "0"}`
    const file = join(dir, `${id}.json`)
    // Made, locked and written under a name recovery ignores, then renamed: a journal recovery can
    // see is always complete and, while its owner lives, locked.
    const pending = join(dir, `.${id}.json.tmp`)
    const fd = openSync(pending, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600)
    lockExclusive(fd)
    const journal = new Journal(fd, file, root)
    journal.write("staging", entries)
    renameSync(pending, file)
    return journal
  }

  /** Records the inodes of the staged files: from now on recovery undoes the change. */
  ready(entries: ReadonlyArray<JournalEntry>): void {
    this.write("ready", entries)
  }

  /** Every target has its new content: from now on recovery only removes leftovers. */
  committed(entries: ReadonlyArray<JournalEntry>): void {
    this.write("committed", entries)
  }

  /** The change is complete (or undone): the journal goes. */
  finish(): void {
    try {
      unlinkSync(this.file)
    } catch {
      // already gone
    }
    closeQuietly(this.fd)
  }

  // One positioned write of the whole document, never shorter than the last:
  // a kill leaves either the old text or the new one.
  private write(state: JournalState, entries: ReadonlyArray<JournalEntry>): void {
    const doc: JournalDoc = { version: 1, root: this.root, pid: process.pid, state, entries }
    const bytes = Buffer.from(JSON.stringify(doc))
    const size = Number(fstatSync(this.fd).size)
    const padded = bytes.length >= size ? bytes : Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x20)])
    writeSync(this.fd, padded, 0, padded.length, 0)
  }
}

/** What recovery did, for a note to the user. */
export interface Recovery {
  /** Files put back to their content before an interrupted change. */
  readonly restored: ReadonlyArray<string>
  /** Leftover temp files removed. */
  readonly removedTemps: number
  /** Journals that could not be used (unreadable, foreign root): left in place or removed without touching files. */
  readonly ignored: number
}

const processAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"
  }
}

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex")

const inodeOf = (path: string | Buffer): string | undefined => {
  try {
    const st = lstatSync(path, { bigint: true })
    return st.isFile() ? String(st.ino) : undefined
  } catch {
    return undefined
  }
}

const contentSha = (path: string | Buffer): string | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    return sha256(readAllFd(fd, Number(fstatSync(fd).size)))
  } catch {
    return undefined
  } finally {
    closeQuietly(fd)
  }
}


/**
 * Undoes one entry of a change: the old content comes back from the backup
 * when the target is still what the change put there (or is gone); a created
 * file is removed when it is still the one created; temps are removed. A
 * committed change is kept: only its leftovers go.
 * Returns whether the target was put back.
 */
export const undoEntry = (dir: CheckedDir, entry: JournalEntry, state: JournalState): boolean => {
  let restored = false
  const target = inDir(dir, entry.name)
  if (state === "committed") {
    if (entry.backup !== undefined && entry.backupIno !== undefined && inodeOf(inDir(dir, entry.backup)) === entry.backupIno) unlinkQuietly(inDir(dir, entry.backup))
  } else if (state === "ready") {
    const now = inodeOf(target)
    const ours = now !== undefined && now === entry.tempIno && (entry.newSha === undefined || contentSha(target) === entry.newSha)
    if (entry.backup !== undefined && entry.backupIno !== undefined) {
      const backup = inDir(dir, entry.backup)
      if (inodeOf(backup) === entry.backupIno) {
        if (now === entry.backupIno) unlinkQuietly(backup)
        else if (now === undefined || ours) {
          renameSync(backup, target)
          restored = true
        } else unlinkQuietly(backup)
      }
    } else if (!entry.existed && ours) {
      unlinkQuietly(target)
      restored = true
    }
  } else if (entry.backup !== undefined && TEMP_NAME.test(entry.backup)) {
    unlinkQuietly(inDir(dir, entry.backup))
  }
  if (entry.temp !== undefined && TEMP_NAME.test(entry.temp)) {
    const ino = inodeOf(inDir(dir, entry.temp))
    if (ino !== undefined && (entry.tempIno === undefined || ino === entry.tempIno)) unlinkQuietly(inDir(dir, entry.temp))
  }
  return restored
}

const validEntry = (e: unknown): e is JournalEntry => {
  const x = e as Record<string, unknown>
  const optional = (k: string) => x[k] === undefined || typeof x[k] === "string"
  return (
    typeof x === "object" &&
    x !== null &&
    typeof x.dir === "string" &&
    typeof x.name === "string" &&
    x.name !== "" &&
    !x.name.includes("/") &&
    x.name !== "." &&
    x.name !== ".." &&
    typeof x.existed === "boolean" &&
    ["temp", "tempIno", "newSha", "backup", "backupIno"].every(optional) &&
    (x.temp === undefined || TEMP_NAME.test(x.temp as string)) &&
    (x.backup === undefined || TEMP_NAME.test(x.backup as string))
  )
}

/**
 * Completes the journals in `dir` left by processes that died: every file of
 * an interrupted change is put back as it was, and the temps are removed.
 * Journals held by a live process are left alone.
 */
export const recoverJournals = (dir: string, root: string, contains: Contains): Recovery => {
  const restored: Array<string> = []
  let removedTemps = 0
  let ignored = 0
  let all: Array<string>
  try {
    all = readdirSync(dir)
  } catch {
    return { restored, removedTemps, ignored }
  }
  // A journal its owner never finished making names no file that exists yet. One whose owner still runs
  // may be between its creation and its lock: it is left alone.
  for (const name of all.filter((n) => PENDING_NAME.test(n))) {
    if (processAlive(Number(name.slice(1, name.indexOf("-"))))) continue
    let fd: number | undefined
    try {
      fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      if (tryLockExclusive(fd)) unlinkSync(join(dir, name))
    } catch {
      // gone meanwhile
    } finally {
      closeQuietly(fd)
    }
  }
  const names = all.filter((n) => JOURNAL_NAME.test(n))
  for (const name of names) {
    const file = join(dir, name)
    let fd: number | undefined
    try {
      fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      if (!tryLockExclusive(fd)) continue
      const text = readFileSync(fd, "utf8").trim()
      let doc: JournalDoc | undefined
      try {
        doc = JSON.parse(text) as JournalDoc
      } catch {
        doc = undefined
      }
      if (!doc || doc.version !== 1 || doc.root !== root || !Array.isArray(doc.entries) || !doc.entries.every(validEntry)) {
        ignored++
        unlinkSync(file)
        continue
      }
      const state: JournalState = doc.state === "ready" || doc.state === "committed" ? doc.state : "staging"
      for (const entry of doc.entries) {
        let checked: CheckedDir | undefined
        try {
          checked = openCheckedDir(contains, entry.dir)
          if (checked.real !== entry.dir) continue
          const before = [entry.temp, entry.backup].filter((t) => t !== undefined && inodeOf(inDir(checked!, t)) !== undefined).length
          if (undoEntry(checked, entry, state)) restored.push(join(entry.dir, entry.name))
          const after = [entry.temp, entry.backup].filter((t) => t !== undefined && inodeOf(inDir(checked!, t)) !== undefined).length
          removedTemps += Math.max(0, before - after)
        } catch {
          // A folder outside the root or gone: nothing of it is touched.
        } finally {
          closeQuietly(checked?.fd)
        }
      }
      unlinkSync(file)
    } catch {
      ignored++
    } finally {
      closeQuietly(fd)
    }
  }
  return { restored, removedTemps, ignored }
}

