import { resolve } from "node:path"
import type { CliIO } from "../cli/output.ts"
import { isRecord } from "../protocol/is-record.ts"
import { readPluginDirs, writePluginDirs } from "../plugins/plugin-dirs-env.ts"

/**
 * The `plugins` of an `initialize` request: the SDK sends them there instead of as `--plugin-dir` flags when the
 * program sets `pluginDelivery: "initialize"`. Read before the session opens, they join the run's plugin folders
 * (`ANVIL_PLUGIN_DIRS`, as `--plugin-dir` does); an entry anvil cannot load is said, never dropped in silence.
 * `applied` answers the SDK's `plugins_applied`: whether every listed plugin is loaded.
 */
export const initializePlugins = (
  given: unknown,
  io: CliIO,
  sessionOpen: boolean,
  onProblem: (message: string) => void,
): { readonly io: CliIO; readonly applied?: boolean } => {
  if (!Array.isArray(given) || given.length === 0) return { io }
  const loaded = readPluginDirs(io.env.ANVIL_PLUGIN_DIRS).dirs
  const dirs: Array<string> = []
  let all = true
  for (const entry of given) {
    const path = isRecord(entry) && typeof entry.path === "string" && entry.path !== "" ? entry.path : undefined
    if (!isRecord(entry) || entry.type !== "local" || path === undefined) {
      onProblem(`initialize: plugin ${JSON.stringify(entry)} is not loaded: anvil loads {type: "local", path} plugins only`)
      all = false
    } else if (entry.skipMcpDiscovery === true) {
      onProblem(`initialize: plugin ${path} is not loaded: anvil loads a plugin folder's MCP servers with it; pass it without skipMcpDiscovery`)
      all = false
    } else dirs.push(resolve(io.cwd, path))
  }
  const fresh = dirs.filter((d) => !loaded.includes(d))
  if (fresh.length === 0) return { io, applied: all }
  // The session's plugins are found when it opens; after that, as in Claude Code, the field loads nothing.
  if (sessionOpen) {
    onProblem(`initialize: plugins ${fresh.join(", ")} are not loaded: the session is already open; pass them in the first initialize`)
    return { io, applied: false }
  }
  return { io: { ...io, env: { ...io.env, ANVIL_PLUGIN_DIRS: writePluginDirs([...loaded, ...fresh]) } }, applied: all }
}
