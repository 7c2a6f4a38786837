import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { BenchContext } from "./context.ts"

/**
 * Starts a generated input under bench/.work: `<work>/<name>` emptied and
 * made a git working tree (nothing committed: rg and anvil need only the
 * .git folder to read .gitignore) with an anvil.json and the given
 * .gitignore. Undefined when the file `marker` (relative to the folder) shows
 * it was generated already: the caller reuses it.
 */
export const freshRepo = (ctx: BenchContext, name: string, marker: string, gitignore: string, what: string): string | undefined => {
  const dir = join(ctx.work, name)
  if (existsSync(join(dir, marker))) return undefined
  ctx.log(`${name}: generating ${what} in ${dir}, once`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  Bun.spawnSync(["git", "init", "-q"], { cwd: dir })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  writeFileSync(join(dir, ".gitignore"), gitignore)
  return dir
}
