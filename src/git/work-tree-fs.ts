import type { GitFsClient } from "./git-fs.ts"
import { isUtf8 } from "./path-bytes.ts"

/*
 * The file system the built-in reader (isomorphic-git) works through,
 * adjusted where isomorphic-git reads working-tree files differently from git.
 */

/**
 * isomorphic-git reads a working-tree file whose content it hashes or stores
 * with `{ autocrlf }` options (and converts CRLF itself, crudely, when that
 * is "true"). Such reads get the content git would store instead, and the
 * option is cleared so that isomorphic-git leaves it alone.
 */
export const storedContentFs = (fs: GitFsClient, dir: string, stored: (absolute: string, bytes: Uint8Array) => Promise<Uint8Array>): GitFsClient => {
  const readFile = (async (path: unknown, options?: unknown) => {
    const marked = typeof options === "object" && options !== null && "autocrlf" in options
    if (marked) (options as { autocrlf?: unknown }).autocrlf = undefined
    const raw = (await fs.promises.readFile(path as string, options as undefined)) as Uint8Array
    if (!marked || typeof path !== "string" || !path.startsWith(`${dir}/`)) return raw
    return Buffer.from(await stored(path, raw))
  }) as GitFsClient["promises"]["readFile"]
  return { ...fs, promises: { ...fs.promises, readFile } } as GitFsClient
}

/** What is thrown through isomorphic-git for a file name that is not UTF-8 (it would read it as U+FFFD and fail on it). */
interface NotUtf8 {
  /** The repository-relative path's bytes. */
  readonly notUtf8: Uint8Array
}

/** Throws {@link NotUtf8} for a name under `dir` that is not UTF-8. */
export const refuseNonUtf8 = (path: Uint8Array): never => {
  throw { notUtf8: path } satisfies NotUtf8
}

export const isNotUtf8 = (e: unknown): e is NotUtf8 => typeof e === "object" && e !== null && "notUtf8" in e

/**
 * A folder listing decoded by node turns a name that is not UTF-8 into one
 * with U+FFFD, which then names no file. Such a listing is read again as
 * bytes and the name refused (see {@link NotUtf8}) instead of misreported.
 */
export const utf8NamesFs = (fs: GitFsClient, dir: string): GitFsClient => {
  const readdir = (async (path: unknown, ...rest: Array<unknown>) => {
    const names = (await (fs.promises.readdir as (...a: Array<unknown>) => Promise<Array<unknown>>)(path, ...rest))
    if (typeof path !== "string" || !names.some((n) => typeof n === "string" && n.includes("\ufffd"))) return names
    const raw = await fs.promises.readdir(path, { encoding: "buffer" })
    const bad = raw.find((name) => !isUtf8(name))
    if (bad === undefined) return names
    const prefix = path === dir ? "" : `${path.slice(dir.length + 1)}/`
    return refuseNonUtf8(Buffer.concat([Buffer.from(prefix), bad]))
  }) as GitFsClient["promises"]["readdir"]
  return { ...fs, promises: { ...fs.promises, readdir } } as GitFsClient
}
