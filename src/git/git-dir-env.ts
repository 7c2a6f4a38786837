import { realpathSync } from "node:fs"
import { relative, resolve, isAbsolute } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import { isGitDirectory, linkedGitdir, placeAt, statOrUndefined, type RepositoryPlace } from "./repository-place.ts"

const real = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** Whether `path` (real) is `root` or under it. */
const inside = (root: string, path: string): boolean => {
  const rel = relative(real(root), path)
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

/** Whether GIT_DIR's value (absolute, real) is a git folder as git accepts one: the folder itself, or a `.git` file naming one. */
const namesRepository = (dir: string): boolean => {
  const target = statOrUndefined(dir)?.isFile() ? linkedGitdir(resolve(dir, ".."), dir) : dir
  return target !== undefined && isGitDirectory(placeAt(target, target))
}

/**
 * GIT_DIR and GIT_WORK_TREE in anvil's environment. git follows them; the git tools work on the repository
 * holding the working folder, and run git without them. Set to that very repository (as git sets GIT_DIR for a
 * hook that starts anvil) they change nothing and are passed over. Naming any other place, the tools would
 * answer for a repository other than the one the user's git shows, so they refuse, and the kind says why:
 * GIT_DIR naming no repository at all (git fails too), a place outside the project (where no tool goes), or
 * another repository inside it.
 */
export const gitDirElsewhere = (
  env: Readonly<Record<string, string | undefined>>,
  workspace: { readonly root: string; readonly cwd: string },
  place: RepositoryPlace | undefined,
): GitError | undefined => {
  const { cwd, root } = workspace
  const gitDir = env.GIT_DIR === "" ? undefined : env.GIT_DIR
  const workTree = env.GIT_WORK_TREE === "" ? undefined : env.GIT_WORK_TREE
  if (gitDir === undefined && workTree === undefined) return undefined
  const gitDirPath = gitDir === undefined ? undefined : real(resolve(cwd, gitDir))
  const workTreePath = workTree === undefined ? undefined : real(resolve(cwd, workTree))
  const dirMatches = gitDirPath === undefined || (place !== undefined && gitDirPath === real(place.gitdir))
  const treeMatches = workTreePath === undefined || (place !== undefined && place.noWorkTree !== true && workTreePath === real(place.dir))
  if (dirMatches && treeMatches) return undefined
  const set = [...(gitDir === undefined ? [] : [`GIT_DIR=${gitDir}`]), ...(workTree === undefined ? [] : [`GIT_WORK_TREE=${workTree}`])]
  const them = set.length === 1 ? "it" : "them"
  const unset = `env -u ${[...(gitDir === undefined ? [] : ["GIT_DIR"]), ...(workTree === undefined ? [] : ["GIT_WORK_TREE"])].join(" -u ")}`
  if (gitDirPath !== undefined && !namesRepository(gitDirPath)) {
    return gitError(
      "not_a_repository",
      `GIT_DIR=${gitDir} is set in anvil's environment but names no git repository (no HEAD, objects and refs there): git itself stops there ("not a git repository"). ` +
        "Unset it, or set it to the repository's .git folder, and start anvil again.",
      { hints: [hint("Bash", "medium", { command: `${unset} git status` })] },
    )
  }
  const found = place === undefined || place.noWorkTree ? "no work tree is found from the working folder" : `the working folder is in the repository at ${place.dir}`
  const outside = [gitDirPath, workTreePath].some((p) => p !== undefined && !inside(root, p))
  const because = `${set.join(" and ")} ${set.length === 1 ? "is" : "are"} set in anvil's environment, but ${found}. git follows these variables; the git tools do not (they work on the repository holding the working folder)`
  const refusal = outside
    ? `, and ${set.length === 1 ? "it names" : "they name"} a place outside the project (the project is ${root}), where no anvil tool goes: refused rather than answer for another repository.`
    : ", so they refuse rather than answer for another repository."
  return gitError(
    outside ? "outside_project" : "other_repository",
    `${because}${refusal} Use Bash with git, which follows ${them} (\`git status\`, \`git log\`), or unset ${them} and start anvil in the work tree you mean.`,
    { hints: [hint("Bash", "medium", { command: "git status" }), hint("Bash", "low", { command: `${unset} git status` })] },
  )
}
