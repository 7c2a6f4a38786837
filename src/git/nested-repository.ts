import { existsSync } from "node:fs"
import { join } from "node:path"

/**
 * The folder of `prefix`'s (repository-relative) path that is a repository of its own (a submodule, or a clone
 * inside the tree: it holds `.git`), nearest the top; undefined when none is. The path itself is not looked at: a
 * submodule named whole is an entry of this repository (its commit), a path below it is not.
 */
export const nestedRepositoryOf = (top: string, prefix: string): string | undefined => {
  const parts = prefix.split("/")
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/")
    if (existsSync(join(top, folder, ".git"))) return folder
  }
  return undefined
}
