import type { ModelEvent, ModelRequest, ThinkingBlock } from "./model.ts"

/**
 * Extended thinking on the two wire protocols: what a request asks for, and the thinking blocks a stream carries.
 * Anthropic: `thinking: {type: "enabled", budget_tokens}` (or `{type: "adaptive"}` with no budget); the budget counts
 * within max_tokens, is at least 1,024, and temperature must be left out. Its `thinking` / `redacted_thinking` blocks
 * stream as thinking_delta and signature_delta and go back unchanged with their turn. OpenAI-compatible servers:
 * `reasoning_effort` (low, medium, high), and the reasoning text some stream as `reasoning_content` (DeepSeek, vLLM,
 * llama.cpp) or `reasoning` (OpenRouter), which is shown but never sent back (those servers refuse it in a request).
 */

/** Anthropic's smallest budget. */
const MIN_BUDGET = 1024

/** The Anthropic body's fields for `request`'s thinking: none without it. */
export const anthropicThinking = (request: ModelRequest, maxTokens: number): Record<string, unknown> => {
  const thinking = request.thinking
  if (thinking === undefined) return {}
  const display = thinking.display !== undefined ? { display: thinking.display } : {}
  if (thinking.budgetTokens === undefined) return { thinking: { type: "adaptive", ...display }, max_tokens: maxTokens }
  const budget = Math.max(MIN_BUDGET, Math.floor(thinking.budgetTokens))
  // The budget must stay under max_tokens: the answer keeps its own allowance on top of a budget that would eat it.
  return { thinking: { type: "enabled", budget_tokens: budget, ...display }, max_tokens: budget < maxTokens ? maxTokens : budget + maxTokens }
}

/** The Anthropic assistant blocks that carry a turn's thinking back (only those the API can check). */
export const anthropicThinkingBlocks = (blocks: ReadonlyArray<ThinkingBlock> | undefined): Array<Record<string, unknown>> =>
  (blocks ?? []).flatMap((b): Array<Record<string, unknown>> =>
    b.redacted !== undefined
      ? [{ type: "redacted_thinking", data: b.redacted }]
      : b.signature !== undefined
        ? [{ type: "thinking", thinking: b.thinking, signature: b.signature }]
        : [],
  )

/** OpenAI's reasoning effort for a budget: adaptive is medium. */
export const reasoningEffort = (request: ModelRequest): Record<string, unknown> => {
  const budget = request.thinking?.budgetTokens
  if (request.thinking === undefined) return {}
  return { reasoning_effort: budget === undefined ? "medium" : budget < 4096 ? "low" : budget < 16384 ? "medium" : "high" }
}

/** Follows the thinking blocks of an Anthropic stream by index: the events each start, delta and stop gives. */
export const anthropicThinkingTracker = () => {
  const open = new Map<number, { thinking: string; signature?: string; redacted?: string }>()
  return {
    /** A content_block_start; undefined when the block is not thinking. */
    start: (index: number, block: Record<string, unknown>): Array<ModelEvent> | undefined => {
      if (block.type === "redacted_thinking") {
        open.set(index, { thinking: "", redacted: String(block.data ?? "") })
        return []
      }
      if (block.type !== "thinking") return undefined
      const text = typeof block.thinking === "string" ? block.thinking : ""
      open.set(index, { thinking: text, ...(typeof block.signature === "string" && block.signature !== "" ? { signature: block.signature } : {}) })
      return text === "" ? [] : [{ type: "thinking_delta", text }]
    },
    /** A content_block_delta; undefined when it is not a thinking block's. */
    delta: (index: number, delta: Record<string, unknown>): Array<ModelEvent> | undefined => {
      const block = open.get(index)
      if (block === undefined) return undefined
      if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
        block.thinking += delta.thinking
        return [{ type: "thinking_delta", text: delta.thinking }]
      }
      if (delta.type === "signature_delta" && typeof delta.signature === "string") block.signature = (block.signature ?? "") + delta.signature
      return []
    },
    /** A content_block_stop: the whole block, when it was thinking. */
    stop: (index: number): Array<ModelEvent> => {
      const block = open.get(index)
      open.delete(index)
      return block ? [{ type: "thinking_end", block }] : []
    },
  }
}

/** The reasoning text of one OpenAI-compatible stream delta, if it has any. */
export const reasoningText = (delta: Record<string, unknown>): string | undefined => {
  const text = delta.reasoning_content ?? delta.reasoning
  return typeof text === "string" && text !== "" ? text : undefined
}
