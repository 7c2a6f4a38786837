import { join } from "node:path"
import { tempDir } from "../support/harness.ts"

/** A clean config home for user Claude Code plugins (`$XDG_CONFIG_HOME/anvil/plugins/…`) and the environment that names it. */
export const claudeConfigEnv = () => {
  const config = tempDir("anvil-claude-cfg-")
  const env = { XDG_CONFIG_HOME: config, HOME: join(config, "home"), PATH: process.env.PATH ?? "/usr/bin:/bin" }
  return { config, env }
}
