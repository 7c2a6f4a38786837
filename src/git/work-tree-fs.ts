import type { GitFsClient } from "./git-fs.ts"
import { decodePath, isUtf8 } from "../workspace/path-bytes.ts"
import { quotePath } from "./quote-path.ts"

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

/**
 * What is thrown through isomorphic-git when the built-in reader meets what
 * it cannot read as git would (rather than answer wrongly): `why` completes
 * "… which the built-in git reader cannot …".
 */
interface Refusal {
  readonly refusal: string
}

/** Refuses with `why` (see {@link Refusal}). */
export const refuse = (why: string): never => {
  throw { refusal: why } satisfies Refusal
}

export const isRefusal = (e: unknown): e is Refusal => typeof e === "object" && e !== null && "refusal" in e

/** Refuses a file name that is not UTF-8: isomorphic-git would read it as U+FFFD and name no file. */
export const refuseNonUtf8 = (path: Uint8Array): never =>
  refuse(`the file name ${quotePath(decodePath(path))} is not UTF-8, which the built-in git reader cannot read`)

/**
 * A folder listing decoded by node turns a name that is not UTF-8 into one
 * with U+FFFD, which then names no file. Such a listing is read again as
 * bytes and the name refused instead of misreported.
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
