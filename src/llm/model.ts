import { Data, Effect, Stream } from "effect"
import { combineUsage, type Usage } from "./usage.ts"

/**
 * The provider-neutral model interface of anvil.
 *
 * Why not effect/ai's LanguageModel: it resolves tool calls itself through its
 * Toolkit handlers, while every anvil tool call must go through anvil's own
 * pipeline (permissions, envelope, truncation, execution_meta) and be stored
 * raw in the session; its provider packages are not part of the effect 4.1
 * line this project pins; and the front ends need the raw server events
 * (`--show-raw`) and the exact bytes sent (bench). So the providers are written
 * by hand over fetch and speak the two wire protocols directly; this file is
 * the small common language they translate to and from.
 */

/** One tool call the model asked for. `arguments` is the JSON text exactly as the model produced it. */
export interface ModelToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * One block of a model's extended thinking. Anthropic's carry a signature (or, redacted, only encrypted `redacted`
 * data) and must be sent back unchanged with the turn that made them while its tool calls are answered.
 */
export interface ThinkingBlock {
  readonly thinking: string
  readonly signature?: string
  readonly redacted?: string
}

/** Extended thinking asked for: a budget of tokens, or none for the model's own measure (Anthropic's "adaptive"). */
export interface ThinkingRequest {
  readonly budgetTokens?: number
  /**
   * How the thinking comes back: `summarized` (the text), or `omitted` (each block without its text; Anthropic's
   * API is asked for it, an OpenAI-compatible server's reasoning is left out by anvil). Unset: the server's default.
   */
  readonly display?: "summarized" | "omitted"
}

export type ModelMessage =
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string; readonly toolCalls?: ReadonlyArray<ModelToolCall>; readonly thinking?: ReadonlyArray<ThinkingBlock> }
  | {
      readonly role: "tool"
      readonly toolCallId: string
      readonly name: string
      readonly content: string
      readonly isError?: boolean
    }

/** A tool as the model is told about it. */
export interface ModelToolSpec {
  readonly name: string
  readonly description: string
  /** JSON Schema of the parameters object. */
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface ModelRequest {
  readonly system: string
  readonly messages: ReadonlyArray<ModelMessage>
  /** Native tools; empty for the ReAct engine (the tools are described in the system prompt). */
  readonly tools: ReadonlyArray<ModelToolSpec>
  readonly maxTokens?: number
  readonly temperature?: number
  /** Stop sequences (the ReAct engine stops before "Observation:"). */
  readonly stop?: ReadonlyArray<string>
  /** Extended thinking (Anthropic `thinking`, OpenAI-compatible `reasoning_effort`); none when absent. */
  readonly thinking?: ThinkingRequest
}

export type { Usage } from "./usage.ts"

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other"

/** What a provider streams while a turn is produced. */
export type ModelEvent =
  | { readonly type: "text_delta"; readonly text: string }
  /** Thinking text as it streams, and each thinking block once whole. */
  | { readonly type: "thinking_delta"; readonly text: string }
  | { readonly type: "thinking_end"; readonly block: ThinkingBlock }
  | { readonly type: "tool_call_start"; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: "tool_call_delta"; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: "tool_call_end"; readonly index: number; readonly call: ModelToolCall }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly reason: FinishReason }
  /** One raw server event (an SSE data line, a replayed turn), for `--show-raw`. */
  | { readonly type: "raw"; readonly data: string }
  /** The size of the request body sent, for the bench and the stats. */
  | { readonly type: "request"; readonly bytes: number; readonly attempt: number }
  /** A failed attempt that will be tried again after `delayMs` (shown to the user: retries are never silent). */
  | { readonly type: "retry"; readonly attempt: number; readonly maxRetries: number; readonly delayMs: number; readonly error: ModelError }
  /** The model that was asked is overloaded or unavailable: `to` (a fallback model) answers from here on. */
  | { readonly type: "fallback"; readonly from: string; readonly to: string; readonly error: ModelError }

/** A failure talking to a model. `retryable` covers 429, 5xx and network failures. */
export class ModelError extends Data.TaggedError("ModelError")<{
  readonly kind: "config" | "auth" | "rate_limit" | "server" | "network" | "bad_request" | "protocol" | "replay" | "timeout"
  readonly message: string
  readonly status?: number
  readonly retryable: boolean
  /** Seconds the server asked us to wait (Retry-After). */
  readonly retryAfterMs?: number
  /** The server said it is overloaded (HTTP 529 or 503, Anthropic's `overloaded_error`): a fallback model may take over. */
  readonly overloaded?: boolean
}> {}

export interface LanguageModelShape {
  /** "provider/model", as configured. */
  readonly id: string
  readonly provider: string
  readonly model: string
  /** The context window in tokens (for compaction). */
  readonly contextWindow: number
  /** Streams one model turn. */
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ModelError>
}

/** A whole model turn, assembled from its events. */
export interface ModelTurn {
  readonly text: string
  readonly toolCalls: ReadonlyArray<ModelToolCall>
  readonly usage: Usage
  readonly finish: FinishReason
  readonly requestBytes: number
  /** The turn's thinking blocks, in order (none without extended thinking). */
  readonly thinking: ReadonlyArray<ThinkingBlock>
}

/**
 * Runs a model turn to its end, handing every event to `onEvent` as it comes
 * (the front ends stream text from here) and returning the assembled turn.
 */
export const collectTurn = (
  stream: Stream.Stream<ModelEvent, ModelError>,
  onEvent: (event: ModelEvent) => Effect.Effect<void> = () => Effect.void,
): Effect.Effect<ModelTurn, ModelError> =>
  Effect.suspend(() => {
    let text = ""
    const calls = new Map<number, ModelToolCall>()
    let usage: Usage = { inputTokens: 0, outputTokens: 0 }
    let finish: FinishReason = "stop"
    let requestBytes = 0
    const thinking: Array<ThinkingBlock> = []
    return Stream.runForEach(stream, (event) => {
      switch (event.type) {
        case "thinking_end":
          thinking.push(event.block)
          break
        case "text_delta":
          text += event.text
          break
        case "tool_call_end":
          calls.set(event.index, event.call)
          break
        case "usage":
          // A stream reports its counts so far (message_start, then message_delta): the largest of each is the response's.
          usage = combineUsage(usage, event.usage, Math.max)
          break
        case "finish":
          finish = event.reason
          break
        case "request":
          requestBytes += event.bytes
          break
      }
      return onEvent(event)
    }).pipe(
      Effect.map(() => ({
        text,
        toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c),
        usage,
        // A reply cut at the output token limit says so even when it holds (cut) tool calls.
        finish: calls.size > 0 && finish !== "length" ? "tool_calls" : finish,
        requestBytes,
        thinking,
      })),
    )
  })
