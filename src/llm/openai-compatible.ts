import { reasoningEffort, reasoningText } from "./thinking.ts"
import type { ModelHttpShape } from "./http.ts"
import {
  ModelError,
  type FinishReason,
  type LanguageModelShape,
  type ModelEvent,
  type ModelMessage,
  type ModelRequest,
  type ModelToolCall,
  type Usage,
} from "./model.ts"
import { sseModel, type SseDecoder, type SseProviderOptions } from "./request.ts"
import type { SseEvent } from "./sse.ts"
import { streamError, unfinishedStream, WHOLE_ANSWER } from "./stream-end.ts"

/** `baseUrl`: e.g. https://api.openai.com/v1 or http://localhost:11434/v1; `/chat/completions` is appended. */
export interface OpenAiCompatibleOptions extends SseProviderOptions {
  /** Ask for a usage chunk (`stream_options.include_usage`); some older servers reject it. Default true. */
  readonly streamUsage?: boolean
}

/** The Chat Completions message list: system first, assistant tool calls, `tool` results by call id. */
export const openAiMessages = (system: string, messages: ReadonlyArray<ModelMessage>): Array<Record<string, unknown>> => [
  ...(system ? [{ role: "system", content: system }] : []),
  ...messages.map((m): Record<string, unknown> => {
    switch (m.role) {
      case "user":
        return { role: "user", content: m.content }
      case "assistant":
        return m.toolCalls && m.toolCalls.length > 0
          ? {
              role: "assistant",
              content: m.content === "" ? null : m.content,
              tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
            }
          : { role: "assistant", content: m.content }
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content }
    }
  }),
]

export const openAiBody = (options: OpenAiCompatibleOptions, request: ModelRequest): Record<string, unknown> => ({
  model: options.model,
  messages: openAiMessages(request.system, request.messages),
  stream: true,
  ...(options.streamUsage === false ? {} : { stream_options: { include_usage: true } }),
  ...(request.tools.length > 0
    ? {
        tools: request.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
        tool_choice: "auto",
      }
    : {}),
  ...((request.maxTokens ?? options.maxTokens) !== undefined ? { max_tokens: request.maxTokens ?? options.maxTokens } : {}),
  ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
  ...reasoningEffort(request),
})

/** OpenAI's usage chunk; `prompt_tokens` counts the cached tokens too, as anvil's `inputTokens` does. */
const openAiUsage = (u: Record<string, any>): Usage => {
  const cached = Number(u.prompt_tokens_details?.cached_tokens ?? 0) || 0
  return {
    inputTokens: Number(u.prompt_tokens ?? 0) || 0,
    outputTokens: Number(u.completion_tokens ?? 0) || 0,
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
  }
}

const finishReason = (raw: unknown): FinishReason =>
  raw === "stop" ? "stop" : raw === "tool_calls" || raw === "function_call" ? "tool_calls" : raw === "length" ? "length" : raw === "content_filter" ? "content_filter" : "other"

interface OpenCall {
  id: string
  name: string
  args: string
  started: boolean
}

/**
 * Translates Chat Completions stream chunks into model events. Tool calls
 * arrive as fragments keyed by `index` (id and name in the first, argument
 * text in the rest); each is closed with a `tool_call_end` when the choice
 * finishes or the stream ends. Servers that omit `index` or `id` are handled
 * (positional index, generated id).
 */
export const openAiDecoder = (request?: ModelRequest): SseDecoder => {
  // Thinking display "omitted", as Anthropic's API answers it: the block is there, its text is not.
  const omit = request?.thinking?.display === "omitted"
  let reasoned = false
  const calls = new Map<number, OpenCall>()
  let generated = 0
  let finished = false
  let seen = false
  // A server that ignored `stream: true` sends one chat.completion: its `message` is read as one whole delta.
  let whole: string | undefined
  // The reasoning text streamed so far: one thinking block, closed with the choice.
  let reasoning = ""
  const close = (): Array<ModelEvent> => {
    const out: Array<ModelEvent> = reasoning === "" && !reasoned ? [] : [{ type: "thinking_end", block: { thinking: reasoning } }]
    reasoning = ""
    reasoned = false
    for (const [index, c] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      if (!c.started) out.push({ type: "tool_call_start", index, id: c.id, name: c.name })
      out.push({ type: "tool_call_end", index, call: { id: c.id, name: c.name, arguments: c.args } satisfies ModelToolCall })
    }
    calls.clear()
    return out
  }
  const event = (sse: SseEvent): Array<ModelEvent> => {
    seen = true
    if (sse.event === WHOLE_ANSWER) whole = sse.data
    const out: Array<ModelEvent> = [{ type: "raw", data: sse.data }]
    if (sse.data.trim() === "[DONE]") {
      out.push(...close())
      if (!finished) out.push({ type: "finish", reason: "stop" })
      finished = true
      return out
    }
    let chunk: Record<string, any>
    try {
      chunk = JSON.parse(sse.data)
    } catch {
      throw new ModelError({ kind: "protocol", retryable: false, message: `The model server sent a stream chunk that is not JSON: ${sse.data.slice(0, 200)}` })
    }
    if (chunk.error) throw streamError("The model server reported an error mid-stream", chunk.error)
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice.delta ?? choice.message ?? {}
      const thought = reasoningText(delta)
      if (thought !== undefined && omit) reasoned = true
      else if (thought !== undefined) {
        reasoning += thought
        out.push({ type: "thinking_delta", text: thought })
      }
      if (typeof delta.content === "string" && delta.content !== "") out.push({ type: "text_delta", text: delta.content })
      const toolCalls: Array<any> = Array.isArray(delta.tool_calls) ? delta.tool_calls : []
      toolCalls.forEach((tc, position) => {
        const index = typeof tc.index === "number" ? tc.index : position
        let call = calls.get(index)
        if (!call) {
          call = { id: "", name: "", args: "", started: false }
          calls.set(index, call)
        }
        if (typeof tc.id === "string" && tc.id !== "" && call.id === "") call.id = tc.id
        const fn = tc.function ?? {}
        if (typeof fn.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name
        if (!call.started && call.name !== "") {
          if (call.id === "") call.id = `call_${++generated}`
          call.started = true
          out.push({ type: "tool_call_start", index, id: call.id, name: call.name })
        }
        if (fn.arguments !== undefined && fn.arguments !== null) {
          const piece = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments)
          call.args += piece
          if (call.started) out.push({ type: "tool_call_delta", index, argumentsDelta: piece })
        }
      })
      if (choice.finish_reason) {
        out.push(...close())
        out.push({ type: "finish", reason: finishReason(choice.finish_reason) })
        finished = true
      }
    }
    if (chunk.usage && typeof chunk.usage === "object") {
      out.push({
        type: "usage",
        usage: openAiUsage(chunk.usage),
      })
    }
    return out
  }
  // A stream that closes without a finish_reason or [DONE] was cut off (a proxy, a crashed server): its text and
  // tool arguments may be partial, so it is an error rather than an answer.
  const end = (): Array<ModelEvent> => {
    if (!finished) throw unfinishedStream(seen, "finish_reason or [DONE]", whole)
    return close()
  }
  return { event, end }
}

/** Any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio, DeepSeek, Qwen, OpenRouter…), streaming, native tools. */
export const makeOpenAiCompatible = (http: ModelHttpShape, options: OpenAiCompatibleOptions): LanguageModelShape =>
  sseModel(http, options, {
    url: `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`,
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    body: (request) => openAiBody(options, request),
    decoder: openAiDecoder,
  })
