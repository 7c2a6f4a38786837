import { Schema } from "effect"
import type { ModelMessage } from "../llm/model.ts"
import { Envelope } from "../protocol/envelope.ts"
import { ExecutionMeta } from "../protocol/execution-meta.ts"

const ToolCall = Schema.Struct({ id: Schema.String, name: Schema.String, arguments: Schema.String })
const TokenUsage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  cacheReadTokens: Schema.optionalKey(Schema.Number),
  cacheWriteTokens: Schema.optionalKey(Schema.Number),
  cacheWrite1hTokens: Schema.optionalKey(Schema.Number),
})

export const UserItem = Schema.Struct({
  type: Schema.Literal("user"),
  text: Schema.String,
  /**
   * What produced it: the user's prompt, an auto-verification report, a ReAct engine reminder, or context the
   * session's start hooks gave (SessionStart), sent before the first prompt after they ran.
   */
  source: Schema.optionalKey(Schema.Literals(["prompt", "verify", "engine", "context"])),
})
export type UserItem = typeof UserItem.Type

export const AssistantItem = Schema.Struct({
  type: Schema.Literal("assistant"),
  text: Schema.String,
  tool_calls: Schema.Array(ToolCall),
  usage: Schema.optionalKey(TokenUsage),
  /** The turn was cut short (cancelled or failed mid-stream). */
  interrupted: Schema.optionalKey(Schema.Boolean),
  /** Its extended thinking, sent back with it (Anthropic checks each block's signature while its calls are answered). */
  thinking: Schema.optionalKey(
    Schema.Array(Schema.Struct({ thinking: Schema.String, signature: Schema.optionalKey(Schema.String), redacted: Schema.optionalKey(Schema.String) })),
  ),
})
export type AssistantItem = typeof AssistantItem.Type

export const ToolItem = Schema.Struct({
  type: Schema.Literal("tool"),
  call_id: Schema.String,
  name: Schema.String,
  /** The LLM-visible text (the envelope's text). */
  text: Schema.String,
  metadata: Schema.Struct({ tool_raw_envelope: Envelope, tool_execution_meta: ExecutionMeta }),
})
export type ToolItem = typeof ToolItem.Type

/** Older turns compacted into one summary (see compaction.ts). */
export const SummaryItem = Schema.Struct({ type: Schema.Literal("summary"), text: Schema.String })
export type SummaryItem = typeof SummaryItem.Type

/**
 * One item of an agent's conversation, as kept in memory and in the session
 * file (decoded with this Schema when a session is read back). A tool item
 * keeps what the model read (`text`) and the raw envelope and execution_meta
 * in its metadata.
 */
export const HistoryItem = Schema.Union([UserItem, AssistantItem, ToolItem, SummaryItem])
export type HistoryItem = typeof HistoryItem.Type

const SUMMARY_PREFIX = "[Summary of the earlier conversation, written when it was compacted]\n"

/** The conversation for a native tool-calling model. */
export const toNativeMessages = (items: ReadonlyArray<HistoryItem>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  // A tool call without a result (a crash, a cancelled stream) would be rejected by the APIs: only calls answered are kept.
  const answered = new Set(items.filter((i): i is ToolItem => i.type === "tool").map((i) => i.call_id))
  for (const item of items) {
    switch (item.type) {
      case "user":
        out.push({ role: "user", content: item.text })
        break
      case "summary":
        out.push({ role: "user", content: SUMMARY_PREFIX + item.text })
        break
      case "assistant": {
        const calls = item.tool_calls.filter((c) => answered.has(c.id))
        out.push({ role: "assistant", content: item.text, ...(calls.length > 0 ? { toolCalls: calls } : {}), ...(item.thinking ? { thinking: item.thinking } : {}) })
        break
      }
      case "tool":
        out.push({
          role: "tool",
          toolCallId: item.call_id,
          name: item.name,
          content: item.text,
          ...(item.metadata.tool_raw_envelope.status === "error" ? { isError: true } : {}),
        })
        break
    }
  }
  return out
}

/** The conversation for the ReAct text protocol: observations come back as user messages. */
export const toReactMessages = (items: ReadonlyArray<HistoryItem>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (const item of items) {
    switch (item.type) {
      case "user":
        out.push({ role: "user", content: item.text })
        break
      case "summary":
        out.push({ role: "user", content: SUMMARY_PREFIX + item.text })
        break
      case "assistant":
        out.push({ role: "assistant", content: item.text })
        break
      case "tool":
        out.push({ role: "user", content: `Observation: ${item.text}` })
        break
    }
  }
  return out
}

/** The size of a conversation in characters (compaction's estimate: about four characters a token). */
export const estimateTokens = (system: string, messages: ReadonlyArray<ModelMessage>, toolsJson: string): number => {
  let chars = system.length + toolsJson.length
  for (const m of messages) {
    chars += m.content.length + 16
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length + 16
  }
  return Math.ceil(chars / 4)
}
