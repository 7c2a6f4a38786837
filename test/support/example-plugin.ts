import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "./anvil-binary.ts"
import { project, tempDir } from "./harness.ts"

/**
 * A temporary repository with a private config and cache whose user
 * anvil.json names one example plugin of plugins/ in `plugins.paths` (a user
 * plugin; named by the repository's anvil.json it would need trust), and
 * whose project anvil.json gives its options (which reach the user's plugin
 * only once trusted: `anvil config trust`); `anvil` runs the compiled
 * binary there.
 */
export const withExamplePlugin = (name: string, tree: Record<string, string> = {}, options: Record<string, unknown> = {}) => {
  const root = project(tree)
  const plugin = join(import.meta.dir, "..", "..", "plugins", name)
  writeFileSync(join(root, "anvil.json"), JSON.stringify({ plugins: { options: { [name]: options } } }))
  const base = tempDir("anvil-example-")
  mkdirSync(join(base, "home"))
  mkdirSync(join(base, "config", "anvil"), { recursive: true })
  writeFileSync(join(base, "config", "anvil", "anvil.json"), JSON.stringify({ plugins: { paths: [plugin] } }))
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  const anvil = (args: ReadonlyArray<string>) => runBinary(args, { cwd: root, env })
  const tool = async (toolName: string, params: unknown) => {
    const r = await anvil(["tool", toolName, JSON.stringify(params)])
    return { code: r.code, stderr: r.stderr, envelope: JSON.parse(r.stdout) }
  }
  return { root, anvil, tool }
}
