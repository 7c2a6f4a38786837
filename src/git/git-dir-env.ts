import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import type { RepositoryPlace } from "./repository-place.ts"

const real = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/**
 * GIT_DIR and GIT_WORK_TREE in anvil's environment. git follows them; the git tools work on the repository
 * holding the working folder, and run git without them. Set to that very repository (as git sets GIT_DIR for a
 * hook that starts anvil) they change nothing and are passed over; naming any other, the tools would answer
 * for a repository other than the one the user's git shows, so they refuse and say so.
 */
export const gitDirElsewhere = (
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  place: RepositoryPlace | undefined,
): GitError | undefined => {
  const gitDir = env.GIT_DIR === "" ? undefined : env.GIT_DIR
  const workTree = env.GIT_WORK_TREE === "" ? undefined : env.GIT_WORK_TREE
  if (gitDir === undefined && workTree === undefined) return undefined
  const dirMatches = gitDir === undefined || (place !== undefined && real(resolve(cwd, gitDir)) === real(place.gitdir))
  const treeMatches = workTree === undefined || (place !== undefined && place.noWorkTree !== true && real(resolve(cwd, workTree)) === real(place.dir))
  if (dirMatches && treeMatches) return undefined
  const set = [...(gitDir === undefined ? [] : [`GIT_DIR=${gitDir}`]), ...(workTree === undefined ? [] : [`GIT_WORK_TREE=${workTree}`])]
  const found = place === undefined || place.noWorkTree ? "no work tree is found from the working folder" : `the working folder is in the repository at ${place.dir}`
  return gitError(
    "not_a_repository",
    `${set.join(" and ")} ${set.length === 1 ? "is" : "are"} set in anvil's environment, but ${found}. git follows these variables; the git tools do not (they work on the repository holding the working folder), so they refuse rather than answer for another repository. ` +
      `Unset ${set.length === 1 ? "it" : "them"} and start anvil in the work tree you mean, or use Bash with git, which follows ${set.length === 1 ? "it" : "them"}.`,
    { hints: [hint("Bash", "medium", { command: "git status" })] },
  )
}
