import type { ModelToolCall, Usage } from "../llm/model.ts"
import type { Envelope } from "../protocol/envelope.ts"
import type { ExecutionMeta } from "../protocol/execution-meta.ts"

/** How a turn ended. */
export type TurnStatus = "success" | "error" | "cancelled"
export type TurnReason = "completed" | "max_steps" | "model_error" | "repeated_failure" | "cancelled"

export interface TurnStats {
  /** Model requests made in the turn. */
  readonly steps: number
  readonly tool_calls: number
  readonly duration_ms: number
  /** Bytes of each request body sent to the model, in order. */
  readonly request_bytes: ReadonlyArray<number>
  readonly compactions: number
  readonly verifications: number
}

export interface TurnResult {
  readonly status: TurnStatus
  readonly reason: TurnReason
  /** The final answer (the last assistant text). */
  readonly answer: string
  readonly usage: Usage
  readonly stats: TurnStats
  readonly error?: string
}

/** What the loop reports while it runs; the front ends render these (chat, text, json, stream-json). */
export type AgentEvent =
  | { readonly type: "step_start"; readonly step: number }
  | { readonly type: "model_request"; readonly step: number; readonly bytes: number; readonly attempt: number }
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "raw"; readonly data: string }
  | {
      readonly type: "assistant"
      readonly text: string
      readonly tool_calls: ReadonlyArray<ModelToolCall>
      readonly usage: Usage
      /** ReAct engine: the parsed parts of the reply. */
      readonly react?: { readonly thought: string; readonly action?: string; readonly action_input?: string; readonly final_answer?: string }
    }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | {
      readonly type: "tool_result"
      readonly id: string
      readonly name: string
      readonly envelope: Envelope
      readonly execution_meta: ExecutionMeta
      /** Time from the model's tool call to this result, ms. */
      readonly elapsed_ms: number
    }
  | { readonly type: "compaction"; readonly replaced: number; readonly tokens_before: number; readonly tokens_after: number }
  | { readonly type: "verify"; readonly command: string; readonly passed: boolean; readonly exit_code: number; readonly output: string }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "turn_end"; readonly result: TurnResult }
