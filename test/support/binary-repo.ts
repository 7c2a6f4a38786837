import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "./binary.ts"
import { project, tempDir } from "./harness.ts"

/** A git repository with `tree`, and a clean home whose own anvil.json is `user` (when given). */
export const binaryRepo = (tree: Record<string, string>, user?: unknown) => {
  const root = project(tree, { marker: false })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  const home = tempDir("anvil-home-")
  if (user !== undefined) {
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  }
  return { root, env: { HOME: home } }
}

/** `anvil tool NAME PARAMS` through the compiled binary in such a repository, its envelope parsed. */
export const binaryTool = async (r: { root: string; env: Record<string, string> }, name: string, params: unknown) => {
  const out = await runBinary(["tool", name, JSON.stringify(params)], { cwd: r.root, env: r.env })
  return { ...out, envelope: JSON.parse(out.stdout) }
}
