import { join } from "node:path"
import type { GitFsClient } from "./git-fs.ts"

/**
 * isomorphic-git reads every file of a repository at `${gitdir}/NAME`. Two of git's rules put some of them
 * elsewhere, and its file system is wrapped so that it finds them there: a linked worktree's shared parts live
 * in the common folder, and GIT_INDEX_FILE names the index to use.
 */

/**
 * Whether `rel` (a path inside a gitdir) is shared by all worktrees, by git's
 * rule: objects, refs (but refs/bisect, refs/worktree, refs/rewritten),
 * logs (but logs/HEAD), config, packed-refs, hooks, info (but
 * info/sparse-checkout)… live in the common dir; HEAD, index and the
 * operation states (MERGE_HEAD…) are the worktree's own.
 */
const isShared = (rel: string): boolean => {
  const top = rel.split("/", 1)[0]!
  if (rel === "info/sparse-checkout" || rel === "logs/HEAD") return false
  if (top === "refs") return !/^refs\/(bisect|worktree|rewritten)(\/|$)/.test(rel)
  return ["objects", "refs", "logs", "info", "hooks", "branches", "common", "remotes", "rr-cache", "svn", "lost-found", "worktrees", "config", "packed-refs", "shallow", "gc.pid"].includes(top)
}

/** `fs` with the first argument of every promise call (the path) passed through `map`. */
const mappedFs = (fs: GitFsClient, map: (path: string) => string): GitFsClient => {
  const promises = new Proxy(fs.promises, {
    get: (target, key) => {
      const value = Reflect.get(target, key) as unknown
      if (typeof value !== "function") return value
      return (first: unknown, ...rest: Array<unknown>) => (value as (...a: Array<unknown>) => unknown).call(target, typeof first === "string" ? map(first) : first, ...rest)
    },
  })
  // isomorphic-git takes `promises` only when it is an own enumerable property.
  return { ...fs, promises } as GitFsClient
}

/**
 * The file system isomorphic-git works through for the repository at `gitdir`: a linked worktree's shared parts
 * read from (and written to) `commondir` (without this it found no objects nor branches and answered "No
 * commits yet"), and the index at `indexFile` when that is not `${gitdir}/index`. Unchanged when neither applies.
 */
export const repositoryFs = (fs: GitFsClient, gitdir: string, commondir: string, indexFile: string): GitFsClient => {
  const prefix = `${gitdir}/`
  const index = `${prefix}index`
  const shared = commondir !== gitdir
  if (!shared && indexFile === index) return fs
  return mappedFs(fs, (p) => {
    if (p === index) return indexFile
    if (!shared || !p.startsWith(prefix)) return p
    const rel = p.slice(prefix.length).replace(/^\/+/, "")
    return isShared(rel) ? join(commondir, rel) : p
  })
}
