import type { ContextUsage } from "../agent/context-usage.ts"
import type { Usage } from "../llm/model.ts"
import { anthropicUsage } from "../llm/usage.ts"

/**
 * The answer to `get_context_usage` (the Agent SDK's getContextUsage()) in Claude Code's shape: one row per part of
 * the context with its kind, the totals, the grid /context draws (10 × 10 squares, each a hundredth of the window),
 * the instruction files, MCP tools and skills. anvil estimates every count (about four characters a token) and asks
 * no token-count API, so `detail: "summary"` and `"full"` answer alike.
 */

type Kind = "used" | "free" | "buffer" | "deferred"
interface Row {
  readonly id: string
  readonly name: string
  readonly tokens: number
  readonly color: string
  readonly kind: Kind
  readonly isDeferred?: boolean
}

const SQUARES = 10
const isMcp = (name: string) => name.startsWith("mcp__")
const sum = (xs: ReadonlyArray<{ readonly tokens: number }>) => xs.reduce((n, x) => n + x.tokens, 0)

/** The grid: squares filled by the used rows in order, then the free space, the buffer last. */
const grid = (rows: ReadonlyArray<Row>, window: number) => {
  const per = window / (SQUARES * SQUARES)
  const drawn = [...rows.filter((r) => r.kind === "used"), ...rows.filter((r) => r.kind === "free"), ...rows.filter((r) => r.kind === "buffer")]
  const squares: Array<{ color: string; isFilled: boolean; categoryName: string; tokens: number; percentage: number; squareFullness: number }> = []
  for (const row of drawn) {
    let left = row.tokens
    while (left > 0 && squares.length < SQUARES * SQUARES) {
      const part = Math.min(per, left)
      squares.push({ color: row.color, isFilled: row.kind === "used", categoryName: row.name, tokens: Math.round(part), percentage: Math.round((part / window) * 1000) / 10, squareFullness: part / per })
      left -= part
    }
  }
  const lines: Array<typeof squares> = []
  for (let i = 0; i < SQUARES; i++) lines.push(squares.slice(i * SQUARES, (i + 1) * SQUARES))
  return lines
}

export const contextUsageResponse = (usage: ContextUsage, lastUsage: Usage | undefined) => {
  const offered = usage.tools.filter((t) => t.offered)
  const deferred = usage.tools.filter((t) => !t.offered)
  const used: Array<Row> = [
    { id: "system_prompt", name: "System prompt", tokens: usage.systemPrompt, color: "promptBorder", kind: "used" },
    { id: "system_tools", name: "System tools", tokens: sum(offered.filter((t) => !isMcp(t.name))), color: "inactive", kind: "used" },
    { id: "mcp_tools", name: "MCP tools", tokens: sum(offered.filter((t) => isMcp(t.name))), color: "cyan_FOR_SUBAGENTS_ONLY", kind: "used" },
    { id: "memory_files", name: "Memory files", tokens: sum(usage.memoryFiles), color: "claude", kind: "used" },
    { id: "skills", name: "Skills", tokens: sum(usage.skills), color: "warning", kind: "used" },
    { id: "messages", name: "Messages", tokens: usage.messages, color: "purple_FOR_SUBAGENTS_ONLY", kind: "used" },
  ]
  const total = sum(used)
  const buffer = Math.max(0, usage.window - usage.compactAt)
  const rows: Array<Row> = [
    ...used,
    { id: "system_tools_deferred", name: "System tools (deferred)", tokens: sum(deferred.filter((t) => !isMcp(t.name))), color: "inactive", kind: "deferred", isDeferred: true },
    { id: "mcp_tools_deferred", name: "MCP tools (deferred)", tokens: sum(deferred.filter((t) => isMcp(t.name))), color: "cyan_FOR_SUBAGENTS_ONLY", kind: "deferred", isDeferred: true },
    { id: "free_space", name: "Free space", tokens: Math.max(0, usage.window - buffer - total), color: "promptBorder", kind: "free" },
    { id: "autocompact_buffer", name: "Autocompact buffer", tokens: buffer, color: "inactive", kind: "buffer" },
  ]
  return {
    categories: rows,
    totalTokens: total,
    maxTokens: usage.window,
    rawMaxTokens: usage.window,
    percentage: Math.round((total / usage.window) * 100),
    gridRows: grid(rows, usage.window),
    model: usage.model,
    memoryFiles: usage.memoryFiles.map((f) => ({ path: f.path, type: "Project", tokens: f.tokens })),
    mcpTools: usage.tools.filter((t) => isMcp(t.name)).map((t) => ({ name: t.name, serverName: t.name.split("__")[1] ?? "", tokens: t.tokens, isLoaded: t.offered })),
    deferredBuiltinTools: deferred.filter((t) => !isMcp(t.name)).map((t) => ({ name: t.name, tokens: t.tokens, isLoaded: false })),
    systemTools: offered.filter((t) => !isMcp(t.name)).map((t) => ({ name: t.name, tokens: t.tokens })),
    agents: [],
    skills: { totalSkills: usage.skills.length, includedSkills: usage.skills.length, tokens: sum(usage.skills), skillFrontmatter: usage.skills.map((k) => ({ name: k.name, source: "anvil", tokens: k.tokens })) },
    autoCompactThreshold: usage.compactAt,
    isAutoCompactEnabled: true,
    apiUsage: lastUsage ? anthropicUsage(lastUsage) : null,
  }
}
