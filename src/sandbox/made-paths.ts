import { lstatSync, rmSync } from "node:fs"
import type { SandboxRefusal } from "./diagnose.ts"
import { showPath } from "./policy.ts"

/**
 * What a command made where nothing may be made (the policy's mustStayAbsent: a `.git/commondir`, a
 * `config.worktree`, which would point git at other config and hooks) is removed once it ended, each reported as
 * a `protected` refusal. Nothing of the command runs any more then (its PID namespace ended with it).
 */
export const removeMadePaths = (root: string, paths: ReadonlyArray<string>): ReadonlyArray<SandboxRefusal> =>
  paths.filter(removeMade).map((path) => madeRefusal(root, path))

/** Removes `path` if the command made it; true when there was something to remove. */
const removeMade = (path: string): boolean => {
  try {
    lstatSync(path)
  } catch {
    return false
  }
  rmSync(path, { recursive: true, force: true })
  return true
}

const madeRefusal = (root: string, path: string): SandboxRefusal => {
  const shown = showPath(root, path)
  return {
    kind: "protected",
    subject: shown,
    message: `The sandbox removed ${shown}, which the command made: it would point git at other config and hooks, which run code later. Run this one command with sandbox: false (the user is asked) if it is really wanted.`,
  }
}
