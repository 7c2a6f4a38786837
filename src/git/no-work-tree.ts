import { basename, dirname } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import { FALSE } from "./repository-config.ts"

/**
 * The error for a working folder inside a git folder: git refuses every command that needs files ("this
 * operation must be run in a work tree"), and the next step depends on which kind it is. (git_log needs none.)
 */
export const noWorkTree = (gitdir: string, shown: string, settings: ReadonlyMap<string, string>): GitError => {
  // git init --bare and clone --bare set core.bare; a .git folder (or a linked worktree's) is no bare repository.
  const bare = settings.get("core.bare")
  if (bare === undefined || FALSE.test(bare) || basename(gitdir) === ".git") {
    const top = basename(gitdir) === ".git" ? dirname(gitdir) : undefined
    return gitError(
      "not_a_repository",
      `The working folder is inside ${shown}, a git folder, which has no work tree of its own: the git tools work from the work tree. ` +
        (top === undefined ? "Start anvil in the work tree this git folder belongs to." : `Start anvil in ${top}, the repository's work tree (or a folder under it).`),
      top === undefined ? {} : { hints: [hint("Bash", "medium", { command: `git -C ${JSON.stringify(top)} status` })] },
    )
  }
  return gitError(
    "not_a_repository",
    `${shown} is a bare git repository: it has no work tree (no checked-out files), so there is nothing to show status or diffs of, or to stage. ` +
      "Clone it and work in the clone, or add a work tree to it; its history: git_log works here (other history questions: Bash with git).",
    { hints: [hint("Bash", "medium", { command: `git clone ${JSON.stringify(gitdir)} <folder>` }), hint("Bash", "low", { command: `git -C ${JSON.stringify(gitdir)} worktree add <folder> <branch>` }), hint("GitLog", "low", { oneline: true })] },
  )
}
