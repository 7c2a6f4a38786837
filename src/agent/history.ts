import type { ModelMessage, ModelToolCall, Usage } from "../llm/model.ts"
import type { Envelope } from "../protocol/envelope.ts"
import type { ExecutionMeta } from "../protocol/execution-meta.ts"

/**
 * One item of an agent's conversation, as kept in memory and in the session
 * file. A tool item keeps what the model read (`text`) and, as spec 001 asks,
 * the raw envelope and the execution_meta in its metadata.
 */
export type HistoryItem = UserItem | AssistantItem | ToolItem | SummaryItem

export interface UserItem {
  readonly type: "user"
  readonly text: string
  /** What produced it: the user's prompt, an auto-verification report, or a ReAct engine reminder. */
  readonly source?: "prompt" | "verify" | "engine"
}

export interface AssistantItem {
  readonly type: "assistant"
  readonly text: string
  readonly tool_calls: ReadonlyArray<ModelToolCall>
  readonly usage?: Usage
  /** The turn was cut short (cancelled or failed mid-stream). */
  readonly interrupted?: boolean
}

export interface ToolItem {
  readonly type: "tool"
  readonly call_id: string
  readonly name: string
  /** The LLM-visible text (the envelope's text). */
  readonly text: string
  readonly metadata: {
    readonly tool_raw_envelope: Envelope
    readonly tool_execution_meta: ExecutionMeta
  }
}

/** Older turns compacted into one summary (see compaction.ts). */
export interface SummaryItem {
  readonly type: "summary"
  readonly text: string
}

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
        out.push({ role: "assistant", content: item.text, ...(calls.length > 0 ? { toolCalls: calls } : {}) })
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
