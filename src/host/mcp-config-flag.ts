import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import type { ServerSource } from "../mcp/server-sources.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * The MCP servers of `--mcp-config` (the Agent SDK puts a program's stdio, HTTP and SSE servers there as
 * `{"mcpServers": {…}}` JSON; a person may name a file). They are the driving program's own choice, so they
 * need no project trust. `sdk` entries are the program's in-process servers, reached over the control channel
 * instead. A value that cannot be read is reported and skipped.
 */
export const mcpConfigSources = (values: ReadonlyArray<string>, cwd: string, onProblem: (message: string) => void): Array<ServerSource> =>
  values.flatMap((value): Array<ServerSource> => {
    const inline = value.trimStart().startsWith("{")
    let parsed: unknown
    try {
      parsed = JSON.parse(inline ? value : readFileSync(resolve(cwd, value), "utf8"))
    } catch (e) {
      onProblem(`--mcp-config ${inline ? "(JSON)" : value} could not be read and was skipped: ${(e as Error).message}`)
      return []
    }
    const servers = isRecord(parsed) && isRecord(parsed.mcpServers) ? parsed.mcpServers : undefined
    if (!servers) {
      onProblem(`--mcp-config ${inline ? "(JSON)" : value} has no "mcpServers" object; skipped`)
      return []
    }
    const external = Object.fromEntries(Object.entries(servers).filter(([, entry]) => !(isRecord(entry) && entry.type === "sdk")))
    return Object.keys(external).length > 0 ? [{ source: inline ? "--mcp-config" : value, scope: "user", servers: external, trusted: true }] : []
  })
