import type { ModelToolCall, ThinkingBlock, Usage } from "../llm/model.ts"
import type { Envelope } from "../protocol/envelope.ts"
import type { ExecutionMeta } from "../protocol/execution-meta.ts"

/** How a turn ended. */
export type TurnStatus = "success" | "error" | "cancelled"
/**
 * Why it ended. Every reason but "completed" is a failure the exit code and
 * the result report (see src/cli/exit-codes.ts): the model failed or gave no
 * answer, a permission denial stopped the work, the verify command still
 * failed, a limit was hit, or the user cancelled.
 */
export type TurnReason =
  | "completed"
  | "max_steps"
  | "model_error"
  | "prompt_too_long"
  | "empty_answer"
  | "permission_denied"
  | "verify_failed"
  | "repeated_failure"
  /** The session's spend reached `--max-budget-usd` (Claude Code's error_max_budget_usd). */
  | "max_budget"
  | "cancelled"
  /** A plugin's hook ended the turn (Claude Code's `continue: false`): not a failure. */
  | "hook_stopped"

/** A tool call refused for lack of permission (Claude Code's SDKPermissionDenial). */
export interface PermissionDenial {
  readonly tool_name: string
  readonly tool_use_id: string
  readonly tool_input: unknown
}

export interface TurnStats {
  /** Model requests made in the turn. */
  readonly steps: number
  readonly tool_calls: number
  readonly duration_ms: number
  /** Bytes of each request body sent to the model, in order. */
  readonly request_bytes: ReadonlyArray<number>
  readonly compactions: number
  readonly verifications: number
  /** Time spent waiting for the model (requests and their streams), ms. */
  readonly api_ms: number
}

export interface TurnResult {
  readonly status: TurnStatus
  readonly reason: TurnReason
  /** The final answer (the last assistant text). */
  readonly answer: string
  /** Every token the turn cost: its own requests, its subagents' and compaction's. */
  readonly usage: Usage
  /** The parts of `usage` spent by subagents and by compaction. */
  readonly usage_parts?: { readonly subagents: Usage; readonly compaction: Usage }
  readonly stats: TurnStats
  /** Calls refused for lack of permission, in order. */
  readonly denials?: ReadonlyArray<PermissionDenial>
  readonly error?: string
  /** A model_error: what kind of failure the provider reported, and its HTTP status when it answered with one. */
  readonly api_error?: { readonly kind: string; readonly status?: number }
  /** hook_stopped: which plugin ended the turn, and its reason (for the person). */
  readonly hook_stopped?: { readonly plugin: string; readonly reason: string }
}

/** What the loop reports while it runs; the front ends render these (chat, text, json, stream-json). */
export type AgentEvent =
  | { readonly type: "step_start"; readonly step: number }
  | { readonly type: "model_request"; readonly step: number; readonly bytes: number; readonly attempt: number }
  | { readonly type: "text_delta"; readonly text: string }
  /** The model's extended thinking as it streams. */
  | { readonly type: "thinking_delta"; readonly text: string }
  | { readonly type: "raw"; readonly data: string }
  /** A model request failed and will be retried after `delay_ms`. */
  | { readonly type: "retry"; readonly attempt: number; readonly max_retries: number; readonly delay_ms: number; readonly message: string; readonly status?: number }
  | {
      readonly type: "assistant"
      readonly text: string
      readonly tool_calls: ReadonlyArray<ModelToolCall>
      readonly usage: Usage
      /** Its extended thinking, whole, before its text. */
      readonly thinking?: ReadonlyArray<ThinkingBlock>
      /** The reply reached the model's output token limit (finish_reason length, stop_reason max_tokens): it may be cut short. */
      readonly cut_off?: boolean
      /** The model that answered, when a fallback model took over from the session's (`--fallback-model`). */
      readonly model?: string
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
  /** The session's model was overloaded or unavailable: `to` answers the rest of the turn (`--fallback-model`). */
  | { readonly type: "model_fallback"; readonly from: string; readonly to: string; readonly message: string }
  | { readonly type: "compaction"; readonly replaced: number; readonly tokens_before: number; readonly tokens_after: number }
  | { readonly type: "verify"; readonly command: string; readonly passed: boolean; readonly exit_code: number; readonly output: string }
  | { readonly type: "error"; readonly message: string }
  /** A plugin's hook ended the turn; its reason is for the person, not the model. */
  | { readonly type: "hook_stopped"; readonly plugin: string; readonly reason: string }
  | { readonly type: "turn_end"; readonly result: TurnResult }

/** A turn that ended before its first model request (cut short at exit, or refused before it began). */
export const turnWithoutSteps = (status: TurnStatus, reason: TurnReason, error?: string): TurnResult => ({
  status,
  reason,
  answer: "",
  usage: { inputTokens: 0, outputTokens: 0 },
  stats: { steps: 0, tool_calls: 0, duration_ms: 0, request_bytes: [], compactions: 0, verifications: 0, api_ms: 0 },
  ...(error !== undefined ? { error } : {}),
})
