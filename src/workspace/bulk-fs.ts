import { Context, Effect, Layer, Option } from "effect"
import { FileSystem } from "./file-system.ts"
import type { PlatformError } from "effect/PlatformError"
import { constants, openSync, statSync } from "node:fs"
import { closeQuietly, fdPath, readDirKeeping, readStillAt, realOfFd } from "./checked-fs.ts"
import { fsPath } from "./path-bytes.ts"
import { listFastKept } from "./fast-listing.ts"
import type { NameFilter } from "./name-filter.ts"

/**
 * The bulk file-system reads a search makes: the listings of many
 * directories, the modification times of many files, the contents of many
 * small files. Through the generic
 * FileSystem service each of these costs an Effect, a callback and an
 * info object several times the size of the system call; a 100,000-file
 * walk or a mtime ordering of 77,000 grep results spent most of its time
 * there. This service does a batch per call instead. A directory that cannot
 * be listed answers undefined; a file that cannot be stat'ed has time 0.
 */

export type EntryType = "File" | "Directory" | "SymbolicLink" | "Other"

export interface DirEntry {
  readonly name: string
  /** The entry itself, not a symbolic link's target. */
  readonly type: EntryType
}

/** One directory's listing. */
export interface DirListing {
  /** Its entries in no particular order: all of them, or (given a `keep` filter) at least its folders and the other entries the filter accepts. */
  readonly entries: ReadonlyArray<DirEntry>
  /** How many entries it has, kept or not. */
  readonly total: number
}

export interface BulkFsShape {
  /**
   * Each directory's listing, or undefined when it cannot be listed. With
   * `keep`, a reader may leave out the non-folder entries whose names the
   * filter refuses (the kernel reader does; they are counted, never decoded).
   */
  readonly listDirectories: (dirs: ReadonlyArray<string>, keep?: NameFilter) => Effect.Effect<ReadonlyArray<DirListing | undefined>>
  /** Epoch milliseconds for each path, in the same order (0 when it cannot be stat'ed). */
  readonly mtimes: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<number>>
  /**
   * The bytes of each file up to `maxBytes` long; `"large"` for a longer one
   * (read it in pieces instead), undefined when it cannot be read.
   */
  readonly readSmallFiles: (paths: ReadonlyArray<string>, maxBytes: number) => Effect.Effect<ReadonlyArray<Uint8Array | "large" | undefined>>
}

const STAT_WINDOW = 256
/** Up to this many paths are stat'ed synchronously (a millisecond or two; a promise each would cost more than the call). */
const SYNC_STATS = 1024

const mtimeOf = (file: string): number => {
  try {
    return statSync(fsPath(file)).mtimeMs
  } catch {
    return 0
  }
}

export class BulkFs extends Context.Service<BulkFs, BulkFsShape>()("anvil/BulkFs") {
  /**
   * The live service: listings through openat2 + getdents64 where the
   * kernel offers them (fast-listing.ts), else synchronous `readdir` (a batch is a few dozen folders,
   * so the event loop waits milliseconds at most); synchronous `stat`s for a
   * small batch (grep stats its results in batches of a few hundred while rg
   * searches), promise `stat`s 256 in flight for a larger one.
   */
  static live: BulkFsShape = {
    listDirectories: (dirs, keep) =>
      Effect.sync(() =>
        dirs.map((dir): DirListing | undefined => {
          const fast = listFastKept(dir, keep)
          if (fast !== "fallback") return fast
          let fd: number | undefined
          try {
            // Read through the opened folder, and only when it really is `dir`: a folder swapped for a
            // link after its parent was listed is never read through.
            fd = openSync(fsPath(dir), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
            if (realOfFd(fd, dir) !== dir) return undefined
            const entries = readDirKeeping(fdPath(fd)).map(
              ({ name, dirent: d }): DirEntry => ({
                name,
                type: d.isFile() ? "File" : d.isDirectory() ? "Directory" : d.isSymbolicLink() ? "SymbolicLink" : "Other",
              }),
            )
            return { entries, total: entries.length }
          } catch {
            return undefined
          } finally {
            closeQuietly(fd)
          }
        }),
      ),
    mtimes: (paths) =>
      paths.length <= SYNC_STATS
        ? Effect.sync(() => paths.map(mtimeOf))
        : Effect.promise(async () => {
            // Imported here: node:fs/promises costs every start-up a few milliseconds otherwise.
            const { stat } = await import("node:fs/promises")
            const out = new Array<number>(paths.length).fill(0)
            let next = 0
            const lane = async () => {
              for (let i = next++; i < paths.length; i = next++) {
                try {
                  out[i] = (await stat(paths[i]!)).mtimeMs
                } catch {
                  out[i] = 0
                }
              }
            }
            await Promise.all(Array.from({ length: Math.min(STAT_WINDOW, paths.length) }, lane))
            return out
          }),
    // No last link followed, and each file must really be where it was listed.
    readSmallFiles: (paths, maxBytes) => Effect.sync(() => paths.map((file) => readStillAt(file, maxBytes))),
  }
  static layer = Layer.succeed(BulkFs, BulkFs.live)

  /** The same answers through an Effect FileSystem (a fake file system in tests, another platform). */
  static fromFileSystem = Layer.effect(
    BulkFs,
    Effect.map(FileSystem, (fs) => ({
      listDirectories: (dirs: ReadonlyArray<string>) =>
        Effect.forEach(
          dirs,
          (dir) =>
            fs.readDirectoryEntries(dir).pipe(
              Effect.map((listed): DirListing => {
                const entries = listed.map(
                  (e): DirEntry => ({
                    name: e.name,
                    type: e.type === "File" || e.type === "Directory" || e.type === "SymbolicLink" ? e.type : "Other",
                  }),
                )
                return { entries, total: entries.length }
              }),
              Effect.orElseSucceed(() => undefined),
            ),
          { concurrency: 8 },
        ),
      mtimes: (paths: ReadonlyArray<string>) =>
        Effect.forEach(
          paths,
          (p) =>
            fs.stat(p).pipe(
              Effect.map((info) => Option.match(info.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })),
              Effect.orElseSucceed(() => 0),
            ),
          { concurrency: 16 },
        ),
      readSmallFiles: (paths: ReadonlyArray<string>, maxBytes: number) =>
        Effect.forEach(
          paths,
          (p) =>
            fs.stat(p).pipe(
              Effect.flatMap(
                (info): Effect.Effect<Uint8Array | "large", PlatformError> =>
                  Number(info.size) > maxBytes ? Effect.succeed("large") : fs.readFile(p),
              ),
              Effect.orElseSucceed(() => undefined),
            ),
          { concurrency: 8 },
        ),
    })),
  )
}
