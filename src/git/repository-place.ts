import { readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { gitConfigFiles, parseGitConfig } from "../workspace/git-config-file.ts"

/**
 * Where a repository is, found as git finds it, with plain synchronous file calls: the git tools open their
 * repository from here, and `anvil tool git_*` finds the folder to start its git in from here before the
 * runtime is loaded (early-git.ts).
 */

/** The folders of a repository. */
export interface RepositoryPlace {
  /** The work tree's top folder (absolute). */
  readonly dir: string
  /** The .git folder (absolute); a linked worktree's own one (`.git/worktrees/NAME`) for a linked worktree. */
  readonly gitdir: string
  /** Where the shared parts live (objects, refs, config, hooks): `gitdir` itself except in a linked worktree. */
  readonly commondir: string
  /** A `.git` file naming no git folder (moved or deleted): git stops there with an error, and so do the tools. */
  readonly brokenLink?: string
  /** The working folder is in a git folder that has no work tree (a bare repository, or inside a `.git`): `gitdir` is it. */
  readonly noWorkTree?: true
}

/** The stat of `path`, or undefined when there is none or it cannot be read (a folder we may not search). */
export const statOrUndefined = (path: string) => {
  try {
    return statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** The `gitdir` a `.git` file names (`gitdir: …`, as submodules and worktrees use), resolved from `top`. */
export const linkedGitdir = (top: string, dotgit: string): string | undefined => {
  let text: string
  try {
    text = readFileSync(dotgit, "utf8")
  } catch {
    return undefined
  }
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
  return target ? resolve(top, target) : undefined
}

/** The folder a linked worktree's gitdir names in its `commondir` file, or undefined for an ordinary repository. */
export const commonDirOf = (gitdir: string): string | undefined => {
  try {
    const text = readFileSync(join(gitdir, "commondir"), "utf8").trim()
    return text === "" ? undefined : resolve(gitdir, text)
  } catch {
    return undefined
  }
}

/** git's test of a git folder: a HEAD, and objects and refs folders (in the common folder for a linked worktree). */
export const isGitDirectory = (place: RepositoryPlace): boolean =>
  statOrUndefined(join(place.gitdir, "HEAD"))?.isFile() === true &&
  statOrUndefined(join(place.commondir, "objects"))?.isDirectory() === true &&
  statOrUndefined(join(place.commondir, "refs"))?.isDirectory() === true

/** The repository whose work tree is at `dir` with its git folder at `gitdir`. */
export const placeAt = (dir: string, gitdir: string): RepositoryPlace => ({ dir, gitdir, commondir: commonDirOf(gitdir) ?? gitdir })

/**
 * The repository holding `cwd`: the nearest `.git` above it, as git finds it (a `.git` file, as submodules and
 * linked worktrees have, is followed); undefined outside any.
 */
export const findRepository = (cwd: string): RepositoryPlace | undefined => {
  let current = cwd
  for (;;) {
    const dotgit = join(current, ".git")
    const info = statOrUndefined(dotgit)
    if (info?.isFile()) {
      const target = linkedGitdir(current, dotgit)
      const place = target === undefined ? undefined : placeAt(current, target)
      return place !== undefined && isGitDirectory(place) ? place : { dir: current, gitdir: dotgit, commondir: dotgit, brokenLink: target ?? dotgit }
    }
    // A .git folder that is no repository (left empty, half deleted) is passed over, as git passes over it.
    if (info?.isDirectory()) {
      const place = placeAt(current, dotgit)
      if (isGitDirectory(place)) return place
    }
    // A folder that is a git folder itself (a bare repository, or a .git entered): git finds it here, with no work tree.
    const itself = placeAt(current, current)
    if (isGitDirectory(itself)) return { ...itself, noWorkTree: true }
    const parent = dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

/** The git config settings in force in a repository: the user's files, then the repository's. */
export const repositorySettings = (
  commondir: string,
  env: Readonly<Record<string, string | undefined>>,
  read: (path: string) => string | undefined,
): ReadonlyMap<string, string> => {
  const merged = new Map<string, string>()
  for (const file of gitConfigFiles(commondir, env)) for (const [k, v] of parseGitConfig(read(file) ?? "")) merged.set(k, v)
  return merged
}
