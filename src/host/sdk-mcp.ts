import type { McpConnection, McpToolInfo } from "../mcp/connection.ts"
import type { RawToolResult } from "../mcp/result-content.ts"
import { mcpTool, type ToolHub } from "../mcp/mcp-tool.ts"
import { DEFAULT_CALL_TIMEOUT_MS, type ServerSpec } from "../mcp/server-config.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ControlChannel } from "./control-channel.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * The host program's in-process MCP servers (`createSdkMcpServer`): named in
 * `initialize.sdkMcpServers` with their tool lists, reached with `mcp_message`
 * control requests that carry one JSON-RPC message each way. Their tools are
 * anvil tools `mcp__<server>__<tool>` built by the same adapter as every MCP
 * tool, so permissions, truncation and spill are the same.
 */

type Json = Record<string, unknown>

const spec = (name: string): ServerSpec => ({
  name,
  source: "the Agent SDK host",
  scope: "user",
  raw: { type: "sdk", name },
  pretrusted: true,
  enabled: true,
  timeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  startupTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  permission: "ask",
  allowReadOnly: false,
  transport: { kind: "http", url: `sdk://${name}`, headers: {} },
  secrets: [],
})

/** One JSON-RPC request to a host server; resolves with its `result`, rejects with its `error`. */
const rpc = (channel: ControlChannel, server: string, method: string, params: Json): Promise<unknown> => {
  const id = Math.floor(Math.random() * 1e9)
  return channel.request({ subtype: "mcp_message", server_name: server, message: { jsonrpc: "2.0", id, method, params } }).then((response) => {
    const reply = isRecord(response.mcp_response) ? response.mcp_response : response
    if (isRecord(reply.error)) {
      throw Object.assign(new Error(String(reply.error.message ?? "the server answered with an error")), { code: reply.error.code })
    }
    return reply.result
  })
}

const connectionOf = (channel: ControlChannel, server: string, info: Json, tools: ReadonlyArray<McpToolInfo>): McpConnection => {
  const serverInfo = isRecord(info.serverInfo) ? info.serverInfo : {}
  return {
    serverName: typeof serverInfo.name === "string" ? serverInfo.name : server,
    serverVersion: typeof serverInfo.version === "string" ? serverInfo.version : "",
    protocolVersion: typeof info.protocolVersion === "string" ? info.protocolVersion : "2025-11-25",
    transport: "http",
    instructions: typeof info.instructions === "string" ? info.instructions : undefined,
    listTools: async () => tools,
    skippedTools: () => [],
    callTool: async (name, args, options) => {
      const work = rpc(channel, server, "tools/call", { name, arguments: args }) as Promise<RawToolResult>
      const limit = new Promise<never>((_, reject) => {
        const timer = setTimeout(() => reject(Object.assign(new Error("timed out"), { code: -32001 })), options.timeoutMs)
        void work.finally(() => clearTimeout(timer)).catch(() => undefined)
        options.signal?.addEventListener("abort", () => reject(new Error("cancelled")), { once: true })
      })
      return Promise.race([work, limit])
    },
    listResources: async () => [],
    listPrompts: async () => [],
    hasCapability: (name) => name === "tools",
    close: async () => {},
  }
}

/** The names of the host's in-process servers, as `initialize` gave them. */
export const sdkServerNames = (initialize: Json): ReadonlyArray<string> =>
  Array.isArray(initialize.sdkMcpServers) ? initialize.sdkMcpServers.filter((n): n is string => typeof n === "string") : []

/** The tools of the host's servers: from `initialize`'s manifests, or asked for with `tools/list` when it sent none. */
export const sdkMcpTools = async (initialize: Json, channel: ControlChannel, onProblem: (message: string) => void): Promise<ReadonlyArray<Tool>> => {
  const names = sdkServerNames(initialize)
  const manifests = isRecord(initialize.sdkMcpServerManifests) ? initialize.sdkMcpServerManifests : {}
  const out: Array<Tool> = []
  for (const server of names) {
    const manifest = isRecord(manifests[server]) ? manifests[server] : {}
    let listed: ReadonlyArray<unknown> = isRecord(manifest.toolsListResult) && Array.isArray(manifest.toolsListResult.tools) ? manifest.toolsListResult.tools : []
    if (!isRecord(manifest.toolsListResult)) {
      try {
        const result = await rpc(channel, server, "tools/list", {})
        listed = isRecord(result) && Array.isArray(result.tools) ? result.tools : []
      } catch (e) {
        onProblem(`the host's MCP server '${server}' did not list its tools: ${(e as Error).message}`)
      }
    }
    const tools = listed.filter((t): t is McpToolInfo => isRecord(t) && typeof t.name === "string") as ReadonlyArray<McpToolInfo>
    const connection = connectionOf(channel, server, isRecord(manifest.initializeResult) ? manifest.initializeResult : {}, tools)
    const hub: ToolHub = { connection: async () => connection, progress: () => {} }
    for (const info of tools) out.push(mcpTool(spec(server), info, hub) as unknown as Tool)
  }
  return out
}
