import { readFileSync, realpathSync } from "node:fs"
import { gitCommand, gitSetup, type GitCommand } from "./git-command.ts"
import { plannedArgs } from "./early-args.ts"
import { findRepository, repositorySettings } from "./repository-place.ts"

/**
 * The full plan of the git commands `anvil tool git_*` will run (see early-git.ts): the repository found as the
 * tools find it, and the arguments its git config gives. It reads files through node:fs, whose loading alone
 * costs about 1.3 ms, so early-git.ts first tries a guess that needs none (early-git.ts guessedGitCommands).
 */

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** The git commands the command line `argv` (the words after `anvil`) will run in `cwd`; none when unsure. */
export const plannedGitCommands = (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<GitCommand> => {
  // ANVIL_ROOT may move the working folder to the root it names: the plain case only.
  if (argv[0] !== "tool" || !argv[1]?.startsWith("git_") || env.ANVIL_ROOT !== undefined) return []
  try {
    const setup = gitSetup(env, "auto")
    const place = setup && findRepository(realpathSync(cwd))
    // GIT_DIR or GIT_WORK_TREE set: the tool decides whether it runs at all (git-dir-env.ts). Without a work tree
    // (a bare repository) only git_log runs.
    if (setup === undefined || place === undefined || place.brokenLink !== undefined || env.GIT_DIR || env.GIT_WORK_TREE) return []
    if (place.noWorkTree && argv[1] !== "git_log") return []
    const args = plannedArgs(argv, () => repositorySettings(place.commondir, env, readText))
    return args.map((a) => gitCommand(setup, place.dir, a))
  } catch {
    return []
  }
}
