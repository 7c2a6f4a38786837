import { basename, dirname } from "node:path"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"
import { FALSE } from "./repository-place.ts"

/**
 * The error for a working folder inside a git folder: git refuses every command that needs files ("this
 * operation must be run in a work tree"), and the next step depends on which kind it is.
 */
export const noWorkTree = (gitdir: string, shown: string, settings: ReadonlyMap<string, string>): GitError => {
  const bare = settings.get("core.bare")
  if (basename(gitdir) === ".git" && (bare === undefined || FALSE.test(bare))) {
    const top = dirname(gitdir)
    return gitError("not_a_repository", `The working folder is inside ${shown}, the git folder of the repository at ${top}, which has no work tree of its own: the git tools work from the work tree. Start anvil in ${top} (or a folder under it).`, {
      hints: [hint("Bash", "medium", { command: `git -C ${JSON.stringify(top)} status` })],
    })
  }
  return gitError(
    "not_a_repository",
    `${shown} is a bare git repository: it has no work tree (no checked-out files), so there is nothing to show status or diffs of, or to stage. ` +
      "Clone it and work in the clone, or add a work tree to it; git_log and other history questions: use Bash with git.",
    { hints: [hint("Bash", "medium", { command: `git clone ${JSON.stringify(gitdir)} <folder>` }), hint("Bash", "low", { command: `git -C ${JSON.stringify(gitdir)} worktree add <folder> <branch>` }), hint("Bash", "low", { command: `git -C ${JSON.stringify(gitdir)} log --oneline -20` })] },
  )
}
