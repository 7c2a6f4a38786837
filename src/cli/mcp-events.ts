import type { McpEvent, McpHub } from "../mcp/mcp-hub.ts"
import { progressLine } from "./mcp-command.ts"

/** An MCP event as a stream-json `system` line. */
export const mcpSystemEvent = (event: McpEvent): Record<string, unknown> =>
  event.type === "status"
    ? { type: "system", subtype: "mcp_server", server: event.server, status: event.status, tools: event.tools, ...(event.error ? { error: event.error } : {}) }
    : { type: "system", subtype: "mcp_progress", server: event.server, tool: event.tool, progress: event.progress, ...(event.total !== undefined ? { total: event.total } : {}), ...(event.message ? { message: event.message } : {}) }

/** An MCP event for a person (stderr): failures and progress; undefined for the rest. */
export const mcpHumanLine = (event: McpEvent): string | undefined => {
  if (event.type === "progress") return progressLine(event)
  if (event.status === "failed" || event.status === "untrusted") return `anvil: MCP server '${event.server}' ${event.status}: ${event.error ?? ""}\n`
  // Connected with a problem: tools left out for invalid definitions, a tool list that could not be read again.
  if (event.status === "connected" && event.error) return `anvil: warning: MCP server '${event.server}': ${event.error}\n`
  return undefined
}

/**
 * The servers that cannot start, as status events to report once at the start of a session. Servers start while
 * the session opens: one whose status was already reported (`reported`: server names) is left out.
 */
export const initialMcpEvents = (hub: McpHub, reported: ReadonlySet<string> = new Set()): ReadonlyArray<McpEvent> =>
  hub
    .views()
    .filter((v) => v.status !== "starting" && v.status !== "connected" && !reported.has(v.name))
    .map((v) => ({ type: "status", server: v.name, status: v.status, tools: 0, ...(v.error ? { error: v.error } : {}) }))
