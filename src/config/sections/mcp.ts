import { Schema } from "effect"
import { NonNegative, setting, type ConfigSection } from "../section.ts"

/** Defaults of the `mcp` settings (the servers themselves are `mcpServers`). */
export const MCP_DEFAULTS = {
  /**
   * Ten seconds, as Codex waits for a server: long enough for a server fetched by npx or uvx on a warm cache
   * (one to five seconds), short enough that a server that hangs costs the first answer little.
   */
  startup_timeout_ms: 10_000,
} as const

/** Session-wide MCP settings. */
export const mcpSection: ConfigSection = {
  fields: () => ({
    mcp: setting(
      Schema.Struct({
        startup_timeout_ms: setting(
          NonNegative(),
          "How long the first model request waits for MCP servers still starting (0: not at all); a server not ready by then joins later.",
          MCP_DEFAULTS.startup_timeout_ms,
        ),
      }),
      "Settings of all MCP servers of a session.",
    ),
  }),
}
