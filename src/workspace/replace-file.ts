import { Effect } from "effect"
import { closeQuietly, openCheckedFile, readAllFd, stampOf, type Contains } from "./checked-fs.ts"
import { ChangedOnDisk, commitFailure, commitSync, type CommitOptions, type CommittedFile, type FileBefore } from "./file-transaction.ts"
import type { WorkspaceError } from "./workspace-error.ts"

/** A file as it is now, read through a checked descriptor; undefined when nothing (or no regular file) is there. */
export const readCurrent = (contains: Contains, absolute: string): (FileBefore & { readonly real: string }) | undefined => {
  let fd: number | undefined
  try {
    const file = openCheckedFile(contains, absolute)
    fd = file.fd
    if (!file.stat.isFile()) return undefined
    const bytes = readAllFd(file.fd, Number(file.stat.size))
    return { real: file.real, bytes, mode: Number(file.stat.mode & 0o7777n), size: bytes.length, mtimeMs: Number(file.stat.mtimeMs), stamp: stampOf(file.stat) }
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined
    throw e
  } finally {
    closeQuietly(fd)
  }
}

/** How often a replace is tried when other writers keep changing the file in between. */
const REPLACE_TRIES = 40

/**
 * Makes `bytes` the whole content of `absolute`, whatever it holds now (no
 * stale check: for anvil's own files and plugin writes), the safe way: through
 * checked folders, under the file's lock, temp + rename. When something else
 * changes the file in between, it is read again and the write retried: each
 * such loss is another writer's success, so a few dozen tries outlast any
 * plausible crowd of writers (twenty `anvil tool todowrite` at once lost the
 * third try).
 */
export const replaceFile = (absolute: string, display: string, bytes: Uint8Array, options: CommitOptions): Effect.Effect<CommittedFile, WorkspaceError> =>
  Effect.try({
    try: () => {
      const contains = options.contains ?? ((p: string) => p === options.root || p.startsWith(`${options.root}/`))
      for (let attempt = 1; ; attempt++) {
        const before = readCurrent(contains, absolute)
        try {
          const [done] = commitSync([{ path: before?.real ?? absolute, display, ...(before ? { before } : {}), after: { bytes } }], options)
          return done!
        } catch (e) {
          if (!(e instanceof ChangedOnDisk) || attempt >= REPLACE_TRIES) throw e
        }
      }
    },
    catch: (e) => commitFailure(e, [{ path: absolute, display, after: { bytes } }]),
  })
