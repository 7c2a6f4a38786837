import { Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
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

/**
 * Finds the repository that holds the working directory (the nearest `.git`
 * above it, as git does) and prepares isomorphic-git calls on it. A `.git`
 * file (`gitdir: …`, as submodules use) is followed.
 */
export const openRepository: Effect.Effect<Repository, GitError, Workspace | FileSystem | Path | GitFs> = Effect.gen(function* () {
  const workspace = yield* Workspace
  const fs = yield* FileSystem
  const path = yield* Path
  const { fs: client } = yield* GitFs
  let current = workspace.cwd
  for (;;) {
    const dotgit = path.join(current, ".git")
    const info = yield* fs.stat(dotgit).pipe(Effect.option)
    if (info._tag === "Some") {
      let gitdir = dotgit
      if (info.value.type === "File") {
        const text = yield* fs.readFileString(dotgit).pipe(Effect.orElseSucceed(() => ""))
        const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
        if (target) gitdir = path.resolve(current, target)
      }
      const dir = current
      const call = <A>(what: string, f: () => Promise<A>) =>
        Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
          Effect.catch((e) =>
            Effect.gen(function* () {
              // Objects borrowed through alternates (clone --shared / --reference) are invisible to isomorphic-git.
              const borrowed = yield* fs.exists(path.join(gitdir, "objects", "info", "alternates")).pipe(Effect.orElseSucceed(() => false))
              const why = borrowed
                ? " This clone borrows objects from another repository (.git/objects/info/alternates), which the built-in git reader cannot follow: install git (anvil then runs it) or use Bash with git."
                : ""
              return yield* Effect.fail(gitError("failed", `git ${what} failed: ${errorText(e)}.${why}`))
            }),
          ),
        )
      const relative = (absolute: string) => {
        const rel = path.relative(dir, absolute)
        if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined
        return rel.split(path.sep).join("/")
      }
      return { dir, gitdir, fs: client, cache: {}, call, relative }
    }
    const parent = path.dirname(current)
    if (parent === current) return yield* Effect.fail(notARepository(workspace.cwdDisplay))
    current = parent
  }
})
