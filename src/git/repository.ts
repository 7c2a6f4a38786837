import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { isAbsolute, join, relative as relativePath, resolve, sep } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import { Workspace } from "../workspace/workspace.ts"
import { GitFs, type GitFsClient } from "./git-fs.ts"
import { alternateObjectDirs, withAlternates } from "./alternates.ts"
import { repositoryFs } from "./mapped-fs.ts"
import { Config } from "../config/config.ts"
import { indexedBlobId } from "./index-file.ts"
import { isoGit } from "./iso-git.ts"
import { noWorkTree } from "./no-work-tree.ts"
import { gitDirElsewhere } from "./git-dir-env.ts"
import { workTreeRules, type WorkTreeRules } from "./work-files.ts"
import { isRefusal, storedContentFs, utf8NamesFs } from "./work-tree-fs.ts"
import { relativeKeeping } from "../workspace/path-bytes.ts"
import { findRepository, isGitDirectory, linkedGitdir, placeAt, repositorySettings, statOrUndefined, type RepositoryPlace } from "./repository-place.ts"

/** An open repository: where it is and how to call isomorphic-git on it. */
export interface Repository extends RepositoryPlace {
  /** The index file (GIT_INDEX_FILE when it is set, else `gitdir`/index): read it here, never at `gitdir`/index. */
  readonly indexFile: string
  /** The file system isomorphic-git reads and writes through (made on first use). */
  readonly fs: GitFsClient
  /** A file of the repository's git folders read as it is (no worktree or alternates mapping); undefined when it cannot be read. */
  readonly readGitFile: (path: string) => Buffer | undefined
  /** isomorphic-git's object and index cache, shared by the calls of one tool run. */
  readonly cache: object
  /** Runs one isomorphic-git call; a thrown error becomes EXECUTION_ERROR naming `what`. */
  readonly call: <A>(what: string, f: () => Promise<A>) => Effect.Effect<A, GitError>
  /** A path as the repository names it (POSIX, relative to `dir`; "" for the top), or undefined outside it. */
  readonly relative: (absolute: string) => string | undefined
  /** The git config settings in force: the user's files, then the repository's (read on first use). */
  readonly settings: () => ReadonlyMap<string, string>
  /** A git config file's text (undefined when it cannot be read), read once however often it is asked for. */
  readonly configText: (path: string) => string | undefined
  /** How git sees working-tree files: excluded paths, stored content (read on first use). */
  readonly workTree: () => WorkTreeRules
  /**
   * The submodule checked out at `path` (repository-relative): its own
   * repository, "absent" when nothing is there, "empty" when the folder
   * holds no repository (not checked out, which git takes as unchanged).
   */
  readonly submodule: (path: string) => Repository | "absent" | "empty"
}

/**
 * The message of a thrown isomorphic-git (or fs) error. An isomorphic-git "internal error" wraps the cause in
 * advice to report a bug to its developers, which is no next step here: only the cause is kept.
 */
export const errorText = (e: unknown): string => {
  const text = e instanceof Error ? e.message : String(e)
  const cause = /^An internal error caused this command to fail\.[\s\S]*?this error message: ([\s\S]*)$/.exec(text)?.[1]
  return cause ?? text
}

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
 * above it, as git does) and prepares isomorphic-git calls on it. A few stats,
 * made synchronously: every git tool call starts here, and going through the
 * effect file system cost a promise round trip per folder. `needsWorkTree`:
 * false for what reads only history, which git answers in a bare repository too.
 */
const open = (needsWorkTree: boolean): Effect.Effect<Repository, GitError, Workspace | GitFs | Config> => Effect.gen(function* () {
  const workspace = yield* Workspace
  const { fs: client } = yield* GitFs
  const { env } = yield* Config
  const place = findRepository(workspace.cwd)
  const elsewhere = gitDirElsewhere(env, workspace, place)
  if (elsewhere !== undefined) return yield* Effect.fail(elsewhere)
  if (place === undefined) return yield* Effect.fail(notARepository(workspace.cwdDisplay))
  if (place.brokenLink !== undefined) {
    const file = workspace.display(join(place.dir, ".git"))
    return yield* Effect.fail(
      gitError(
        "not_a_repository",
        `Not a git repository: ${file} is a file naming ${place.brokenLink === join(place.dir, ".git") ? "no git folder (no 'gitdir:' line)" : `the git folder ${place.brokenLink}, which is missing or no git folder`} (moved or deleted?). Fix or remove that file; git itself stops here too.`,
        { hints: [hint("Bash", "medium", { command: `cat ${file}` })] },
      ),
    )
  }
  if (place.noWorkTree) {
    if (!needsWorkTree) return openAt(place, client, env)
    return yield* Effect.fail(noWorkTree(place.gitdir, place.gitdir === workspace.cwd ? place.gitdir : workspace.display(place.gitdir), repositorySettings(place.gitdir, env, (p) => readText(client, p))))
  }
  return openAt(place, client, env, indexFileOf(place, env))
})

/** The repository of the working folder, with its work tree (status, diffs, staging, commits). */
export const openRepository = open(true)

/** The repository of the working folder for reading its history: a bare one (or a .git folder entered) too. */
export const openHistory = open(false)

/** The index git uses: GIT_INDEX_FILE, resolved from the work tree's top as git (which runs there) resolves it, else the gitdir's. */
const indexFileOf = (place: RepositoryPlace, env: Readonly<Record<string, string | undefined>>): string =>
  env.GIT_INDEX_FILE ? resolve(place.dir, env.GIT_INDEX_FILE) : join(place.gitdir, "index")

/** Whether the repository's config sets extensions.objectFormat = sha256 (read only to explain a failure). */
const usesSha256 = (commondir: string): boolean => {
  try {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readFileSync(join(commondir, "config"), "utf8"))
  } catch {
    return false
  }
}

/** A memo of `make`: computed on the first call. */
const once = <A>(make: () => A): (() => A) => {
  let value: { readonly a: A } | undefined
  return () => (value ??= { a: make() }).a
}

const readText = (fs: GitFsClient, path: string): string | undefined => {
  try {
    return fs.readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/**
 * Opens the repository at `place`. `indexFile` is the index the tools read and write: GIT_INDEX_FILE's when it is
 * set (git resolves a relative one from the work tree's top, where it runs), else the gitdir's own. A submodule
 * is opened with its own index, as git clears GIT_INDEX_FILE for the commands it runs in one.
 */
const openAt = (place: RepositoryPlace, plainFs: GitFsClient, env: Readonly<Record<string, string | undefined>>, indexFile = join(place.gitdir, "index")): Repository => {
  const { dir, gitdir, commondir } = place
  // The file system isomorphic-git works through, made on first use: copying node's fs module reads its lazy
  // getters, which load node's stream modules; a call answered by the git executable never needs it.
  const objects = once(() => {
    const local = repositoryFs(plainFs, gitdir, commondir, indexFile)
    const objectsDir = join(commondir, "objects")
    const alternates = alternateObjectDirs(objectsDir)
    return alternates.length === 0 ? local : withAlternates(local, objectsDir, alternates)
  })
  // The config files are read once for all who ask (the merged settings, git_status's sparse-checkout check).
  const configTexts = new Map<string, string | undefined>()
  const configText = (file: string): string | undefined => {
    if (!configTexts.has(file)) configTexts.set(file, readText(plainFs, file))
    return configTexts.get(file)
  }
  const settings = once(() => repositorySettings(commondir, env, configText))
  const workTree = once(() => workTreeRules({ dir, commondir, settings: settings(), env, read: (p) => readText(plainFs, p) }))
  const indexedBlob = async (path: string): Promise<Uint8Array | undefined> => {
    const index = await plainFs.promises.readFile(indexFile).then((b) => new Uint8Array(b), () => new Uint8Array(0))
    const oid = indexedBlobId(index, path)
    if (oid === undefined) return undefined
    const git = await isoGit()
    return git.readBlob({ fs: objects(), gitdir, oid }).then((r) => r.blob, () => undefined)
  }
  const fs = once(() =>
    storedContentFs(utf8NamesFs(objects(), dir), dir, (absolute, bytes) => {
      const rel = absolute.slice(dir.length + 1)
      return workTree().stored(rel, bytes, () => indexedBlob(rel))
    }),
  )
  const call = <A>(what: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
      Effect.catch((e) => {
        // isomorphic-git reads SHA-1 repositories only: its own message (an "internal error", a checksum) would mislead.
        // (The log has its own reader, which knows SHA-256.)
        if (what !== "log" && usesSha256(commondir)) {
          return Effect.fail(
            gitError("failed", `git ${what} failed: this repository names objects with SHA-256 (extensions.objectFormat = sha256), which the built-in git reader cannot read: install git (anvil then runs it) or use Bash with git.`),
          )
        }
        if (isRefusal(e)) return Effect.fail(gitError("failed", `git ${what} failed: ${e.refusal}: install git (anvil then runs it) or use Bash with git.`))
        return Effect.fail(gitError("failed", `git ${what} failed: ${errorText(e).replace(/\.+$/, "")}.`))
      }),
    )
  const relative = (absolute: string) => {
    const rel = relativeKeeping(dir, absolute, relativePath)
    if (rel.startsWith("..") || isAbsolute(rel)) return undefined
    return rel.split(sep).join("/")
  }
  const submodule = (path: string): Repository | "absent" | "empty" => {
    const top = join(dir, path)
    if (statOrUndefined(top)?.isDirectory() !== true) return "absent"
    const dotgit = join(top, ".git")
    const info = statOrUndefined(dotgit)
    const subGitdir = info === undefined ? undefined : info.isFile() ? linkedGitdir(top, dotgit) : dotgit
    const place = subGitdir === undefined ? undefined : placeAt(top, subGitdir)
    // A .git that forms no repository (an empty folder, a link to nothing) is no repository to git either.
    return place === undefined || !isGitDirectory(place) ? "empty" : openAt(place, plainFs, env)
  }
  return {
    dir,
    gitdir,
    commondir,
    indexFile,
    get fs() {
      return fs()
    },
    readGitFile: (path) => {
      try {
        return plainFs.readFileSync(path)
      } catch {
        return undefined
      }
    },
    cache: {},
    call,
    relative,
    settings,
    configText,
    workTree,
    submodule,
  }
}
