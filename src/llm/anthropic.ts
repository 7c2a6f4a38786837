import { anthropicThinking, anthropicThinkingBlocks, anthropicThinkingTracker } from "./thinking.ts"
import type { ModelHttpShape } from "./http.ts"
import { ModelError, type FinishReason, type LanguageModelShape, type ModelEvent, type ModelMessage, type ModelRequest, type Usage } from "./model.ts"
import { sseModel, type SseDecoder, type SseProviderOptions } from "./request.ts"
import type { SseEvent } from "./sse.ts"
import { streamError, unfinishedStream, WHOLE_ANSWER } from "./stream-end.ts"
import { noUsage, uncachedInput } from "./usage.ts"

/** `baseUrl`: https://api.anthropic.com (a trailing /v1 is accepted), `/v1/messages` is appended. `maxTokens` is required by the Messages API: default 8192. */
export type AnthropicOptions = SseProviderOptions

const ANTHROPIC_VERSION = "2023-06-01"

type Block = Record<string, unknown>
interface Turn {
  role: "user" | "assistant"
  content: Array<Block>
}

const parseInput = (args: string): unknown => {
  if (args.trim() === "") return {}
  try {
    const v: unknown = JSON.parse(args)
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : { input: v }
  } catch {
    // The model produced arguments that are not JSON; the tool already answered INVALID_PARAM.
    // The Messages API needs an object here, so the raw text is kept under one key.
    return { _raw_arguments: args }
  }
}

/**
 * The Messages API conversation: strict user/assistant alternation, tool
 * calls as `tool_use` blocks, their results as `tool_result` blocks in the
 * next user turn (consecutive results and a following user text merge into
 * one turn).
 */
export const anthropicMessages = (messages: ReadonlyArray<ModelMessage>): Array<Turn> => {
  const turns: Array<Turn> = []
  const push = (role: Turn["role"], blocks: Array<Block>) => {
    if (blocks.length === 0) return
    const last = turns[turns.length - 1]
    if (last && last.role === role) last.content.push(...blocks)
    else turns.push({ role, content: blocks })
  }
  for (const m of messages) {
    switch (m.role) {
      case "user":
        push("user", [{ type: "text", text: m.content === "" ? "(empty)" : m.content }])
        break
      case "assistant":
        push("assistant", [
          ...anthropicThinkingBlocks(m.thinking),
          ...(m.content.trim() !== "" ? [{ type: "text", text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: parseInput(c.arguments) })),
        ])
        break
      case "tool":
        push("user", [
          { type: "tool_result", tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) },
        ])
        break
    }
  }
  return turns
}

export const anthropicBody = (options: AnthropicOptions, request: ModelRequest): Record<string, unknown> => ({
  model: options.model,
  max_tokens: request.maxTokens ?? options.maxTokens ?? 8192,
  // Thinking raises max_tokens to hold its budget; it takes no temperature.
  ...anthropicThinking(request, request.maxTokens ?? options.maxTokens ?? 8192),
  ...(request.system ? { system: request.system } : {}),
  messages: anthropicMessages(request.messages),
  stream: true,
  ...(request.tools.length > 0
    ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) }
    : {}),
  ...(request.temperature !== undefined && request.thinking === undefined ? { temperature: request.temperature } : {}),
  ...(request.stop && request.stop.length > 0 ? { stop_sequences: request.stop } : {}),
})

const stopReason = (raw: unknown): FinishReason =>
  raw === "end_turn" || raw === "stop_sequence" ? "stop" : raw === "tool_use" ? "tool_calls" : raw === "max_tokens" ? "length" : raw === "refusal" ? "content_filter" : "other"

const count = (v: unknown): number | undefined => (v === undefined || v === null ? undefined : Number(v) || 0)

/**
 * Anthropic's usage object over what the stream said before (message_delta repeats only some counts, each the total
 * so far). Its `input_tokens` leaves out the cache's tokens; anvil's `inputTokens` is the whole prompt.
 */
const usageOf = (u: Record<string, any>, before: Usage): Usage => {
  const read = count(u.cache_read_input_tokens) ?? before.cacheReadTokens ?? 0
  const write = count(u.cache_creation_input_tokens) ?? before.cacheWriteTokens ?? 0
  const write1h = count(u.cache_creation?.ephemeral_1h_input_tokens) ?? before.cacheWrite1hTokens ?? 0
  const uncached = count(u.input_tokens) ?? uncachedInput(before)
  return {
    inputTokens: uncached + read + write,
    outputTokens: count(u.output_tokens) ?? before.outputTokens,
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
    ...(write1h > 0 ? { cacheWrite1hTokens: Math.min(write1h, write) } : {}),
  }
}

/** Translates the Messages stream (message_start, content_block_*, message_delta, message_stop) into model events. */
export const anthropicDecoder = (): SseDecoder => {
  const blocks = new Map<number, { kind: string; id: string; name: string; json: string }>()
  const thinking = anthropicThinkingTracker()
  let usage: Usage = noUsage()
  let finished = false
  let seen = false
  let whole: string | undefined
  const event = (sse: SseEvent): Array<ModelEvent> => {
    seen = true
    if (sse.event === WHOLE_ANSWER) whole = sse.data
    const out: Array<ModelEvent> = [{ type: "raw", data: sse.data }]
    let e: Record<string, any>
    try {
      e = JSON.parse(sse.data)
    } catch {
      throw new ModelError({ kind: "protocol", retryable: false, message: `The Anthropic stream sent an event that is not JSON: ${sse.data.slice(0, 200)}` })
    }
    switch (e.type ?? sse.event) {
      // The whole message, from a server that ignored `stream: true`: its blocks as if streamed.
      case "message": {
        usage = usageOf(e.usage ?? {}, usage)
        out.push({ type: "usage", usage })
        const content: Array<any> = Array.isArray(e.content) ? e.content : []
        content.forEach((b, index) => {
          if (b?.type === "thinking" || b?.type === "redacted_thinking") out.push(...thinking.start(index, b)!, ...thinking.stop(index))
          if (b?.type === "text" && typeof b.text === "string" && b.text !== "") out.push({ type: "text_delta", text: b.text })
          if (b?.type === "tool_use") {
            const id = String(b.id ?? `toolu_${index}`)
            const name = String(b.name ?? "")
            const args = b.input && typeof b.input === "object" ? JSON.stringify(b.input) : "{}"
            out.push({ type: "tool_call_start", index, id, name }, { type: "tool_call_delta", index, argumentsDelta: args }, { type: "tool_call_end", index, call: { id, name, arguments: args } })
          }
        })
        out.push({ type: "finish", reason: stopReason(e.stop_reason ?? "end_turn") })
        finished = true
        break
      }
      case "message_start": {
        usage = usageOf(e.message?.usage ?? {}, usage)
        out.push({ type: "usage", usage })
        break
      }
      case "content_block_start": {
        const b = e.content_block ?? {}
        const index = Number(e.index ?? blocks.size)
        const thought = thinking.start(index, b)
        if (thought) {
          out.push(...thought)
          break
        }
        blocks.set(index, { kind: String(b.type), id: String(b.id ?? `toolu_${index}`), name: String(b.name ?? ""), json: "" })
        if (b.type === "tool_use") {
          out.push({ type: "tool_call_start", index, id: String(b.id ?? `toolu_${index}`), name: String(b.name ?? "") })
          // Some servers put the whole input in the start block instead of streaming it.
          if (b.input && typeof b.input === "object" && Object.keys(b.input).length > 0) blocks.get(index)!.json = JSON.stringify(b.input)
        } else if (b.type === "text" && typeof b.text === "string" && b.text !== "") {
          out.push({ type: "text_delta", text: b.text })
        }
        break
      }
      case "content_block_delta": {
        const index = Number(e.index ?? 0)
        const d = e.delta ?? {}
        const thought = thinking.delta(index, d)
        if (thought) out.push(...thought)
        else if (d.type === "text_delta" && typeof d.text === "string") out.push({ type: "text_delta", text: d.text })
        else if (d.type === "input_json_delta" && typeof d.partial_json === "string") {
          const block = blocks.get(index)
          if (block) block.json += d.partial_json
          out.push({ type: "tool_call_delta", index, argumentsDelta: d.partial_json })
        }
        break
      }
      case "content_block_stop": {
        const index = Number(e.index ?? 0)
        out.push(...thinking.stop(index))
        const block = blocks.get(index)
        if (block?.kind === "tool_use") {
          out.push({ type: "tool_call_end", index, call: { id: block.id, name: block.name, arguments: block.json === "" ? "{}" : block.json } })
        }
        blocks.delete(index)
        break
      }
      case "message_delta": {
        usage = usageOf(e.usage ?? {}, usage)
        out.push({ type: "usage", usage })
        if (e.delta?.stop_reason) {
          out.push({ type: "finish", reason: stopReason(e.delta.stop_reason) })
          finished = true
        }
        break
      }
      case "message_stop":
        if (!finished) out.push({ type: "finish", reason: "stop" })
        finished = true
        break
      case "error": {
        const err = typeof e.error === "object" && e.error !== null ? e.error : { message: e.error }
        throw streamError(`The Anthropic API reported an error mid-stream: ${err.type ?? "error"}`, { ...err, message: err.message ?? JSON.stringify(e) })
      }
    }
    return out
  }
  // Without a stop_reason or message_stop the stream was cut off and its text or tool input may be partial.
  const end = (): Array<ModelEvent> => {
    if (!finished) throw unfinishedStream(seen, "stop_reason or message_stop", whole)
    const out: Array<ModelEvent> = []
    for (const [index, block] of blocks) {
      if (block.kind === "tool_use") out.push({ type: "tool_call_end", index, call: { id: block.id, name: block.name, arguments: block.json || "{}" } })
    }
    blocks.clear()
    return out
  }
  return { event, end }
}

export const anthropicUrl = (baseUrl: string): string => {
  const base = baseUrl.replace(/\/+$/, "")
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`
}

/** The Anthropic Messages API, streaming, with native tool use. */
export const makeAnthropic = (http: ModelHttpShape, options: AnthropicOptions): LanguageModelShape =>
  sseModel(http, options, {
    url: anthropicUrl(options.baseUrl),
    headers: {
      "anthropic-version": ANTHROPIC_VERSION,
      ...(options.apiKey ? { "x-api-key": options.apiKey } : {}),
      ...options.headers,
    },
    body: (request) => anthropicBody(options, request),
    decoder: anthropicDecoder,
  })
