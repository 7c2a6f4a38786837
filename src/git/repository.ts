import { Effect } from "effect"
import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, relative as relativePath, resolve, sep } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import { Workspace } from "../workspace/workspace.ts"
import { GitFs, type GitFsClient } from "./git-fs.ts"

/** An open repository: where it is and how to call isomorphic-git on it. */
export interface Repository {
  /** The work tree's top folder (absolute). */
  readonly dir: string
  /** The .git folder (absolute). */
  readonly gitdir: string
  readonly fs: GitFsClient
  /** isomorphic-git's object and index cache, shared by the calls of one tool run. */
  readonly cache: object
  /** Runs one isomorphic-git call; a thrown error becomes EXECUTION_ERROR naming `what`. */
  readonly call: <A>(what: string, f: () => Promise<A>) => Effect.Effect<A, GitError>
  /** A path as the repository names it (POSIX, relative to `dir`; "" for the top), or undefined outside it. */
  readonly relative: (absolute: string) => string | undefined
}

/** The message of a thrown isomorphic-git (or fs) error. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The one error for "not in a repository": git tools degrade to a hint at the git command line. */
export const notARepository = (cwd: string): GitError =>
  gitError(
    "not_a_repository",
    `Not a git repository: no .git folder in '${cwd}' or any folder above it. ` +
      "The git tools only work inside a repository; use Bash to run git itself (e.g. `git init` to start one).",
    { hints: [hint("Bash", "medium", { command: "git init" })] },
  )

/** The stat of `path`, or undefined when there is none or it cannot be read (a folder we may not search). */
const statOrUndefined = (path: string) => {
  try {
    return statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** The `gitdir` a `.git` file names (`gitdir: …`, as submodules and worktrees use), resolved from `top`. */
const linkedGitdir = (top: string, dotgit: string): string | undefined => {
  let text: string
  try {
    text = readFileSync(dotgit, "utf8")
  } catch {
    return undefined
  }
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
  return target ? resolve(top, target) : undefined
}

/**
 * Finds the repository that holds the working directory (the nearest `.git`
 * above it, as git does) and prepares isomorphic-git calls on it. A `.git`
 * file (`gitdir: …`, as submodules use) is followed. A few stats, made
 * synchronously: every git tool call starts here, and going through the
 * effect file system cost a promise round trip per folder.
 */
export const openRepository: Effect.Effect<Repository, GitError, Workspace | GitFs> = Effect.gen(function* () {
  const workspace = yield* Workspace
  const { fs: client } = yield* GitFs
  let current = workspace.cwd
  for (;;) {
    const dotgit = join(current, ".git")
    const info = statOrUndefined(dotgit)
    if (info !== undefined) {
      const gitdir = (info.isFile() ? linkedGitdir(current, dotgit) : undefined) ?? dotgit
      return openAt(current, gitdir, client)
    }
    const parent = dirname(current)
    if (parent === current) return yield* Effect.fail(notARepository(workspace.cwdDisplay))
    current = parent
  }
})

const openAt = (dir: string, gitdir: string, fs: GitFsClient): Repository => {
  const call = <A>(what: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
      Effect.catch((e) => {
        // Objects borrowed through alternates (clone --shared / --reference) are invisible to isomorphic-git.
        const why = existsSync(join(gitdir, "objects", "info", "alternates"))
          ? " This clone borrows objects from another repository (.git/objects/info/alternates), which the built-in git reader cannot follow: install git (anvil then runs it) or use Bash with git."
          : ""
        return Effect.fail(gitError("failed", `git ${what} failed: ${errorText(e).replace(/\.+$/, "")}.${why}`))
      }),
    )
  const relative = (absolute: string) => {
    const rel = relativePath(dir, absolute)
    if (rel.startsWith("..") || isAbsolute(rel)) return undefined
    return rel.split(sep).join("/")
  }
  return { dir, gitdir, fs, cache: {}, call, relative }
}
