import { Schema } from "effect"
import { Count, setting, type ConfigSection } from "../section.ts"

/**
 * One entry of `mcpServers`, in the shape Claude Code's `.mcp.json` uses, plus
 * anvil's per-server settings. `type` may be left out: a `command` means stdio,
 * a `url` streamable HTTP (with SSE as the fallback).
 */
export const McpServerEntry = Schema.Struct({
  type: Schema.optional(Schema.Literals(["stdio", "http", "sse", "streamable-http"])),
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** false: listed as disabled, never started. */
  enabled: Schema.optional(Schema.Boolean),
  /** Deadline of one tool call, milliseconds (default 600000: ten minutes); 0, a negative or no number is refused, not taken for the default. */
  timeout: Schema.optional(Count()),
  /** Deadline of start-up and the first tool listing, milliseconds (default 30000); refused as `timeout` is. */
  startupTimeout: Schema.optional(Count()),
  /** Default permission of the server's tools (default "ask"); `permission.mcp__<server>__<tool>` still applies. */
  permission: Schema.optional(Schema.Literals(["allow", "ask", "deny"])),
  /** true: tools the server annotates `readOnlyHint` run without asking (unless a rule says otherwise). */
  allowReadOnly: Schema.optional(Schema.Boolean),
})

/** MCP servers by name (also read from .mcp.json); see src/mcp. */
export const mcpServersSection: ConfigSection = {
  fields: () => ({
    mcpServers: setting(Schema.Record(Schema.String, McpServerEntry), "MCP servers by name: a command (stdio) or a url (HTTP), with anvil's per-server settings."),
  }),
}
