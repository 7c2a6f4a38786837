import { randomUUID } from "node:crypto"
import type { TurnResult } from "../agent/events.ts"
import type { CostMeter } from "../agent/cost-meter.ts"
import { newSessionId } from "../agent/session-id.ts"
import type { Usage } from "../llm/model.ts"
import { anthropicUsage, uncachedInput } from "../llm/usage.ts"
import { apiErrorResult, isApiError } from "./claude-api-error.ts"
import { exitCodeOf } from "./exit-codes.ts"
import type { ExitSignal } from "./signals.ts"

/**
 * Claude Code's `result` message (the SDK's SDKResultMessage; the whole output of `--output-format json`) for a turn
 * of anvil's, and the one written when no session could start. claude-stream.ts stamps it with the session's ids.
 */

/** What the result names beside the turn: the session's model, its context window, what it spent. */
export interface ResultContext {
  readonly model: string
  readonly contextWindow: number
  readonly cost?: CostMeter | undefined
}

export { anthropicUsage }

/** Claude's result subtypes; the precise cause is in the extra `reason` key. */
const subtypeOf = (result: TurnResult): string =>
  result.reason === "completed" || result.reason === "hook_stopped"
    ? "success"
    : result.reason === "max_steps"
      ? "error_max_turns"
      : result.reason === "max_budget"
        ? "error_max_budget_usd"
        : "error_during_execution"

/** Claude's per-model totals: the session's, from its cost meter; without one, this turn's tokens under the session's model. */
const modelUsageOf = (options: ResultContext, result: TurnResult): Record<string, unknown> => {
  const rows = options.cost?.byModel() ?? [{ model: options.model, usage: result.usage, costUsd: 0 }]
  const row = (usage: Usage, costUsd: number) => ({
    // Claude's split: the uncached prompt tokens, then the cache's.
    inputTokens: uncachedInput(usage),
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: usage.cacheReadTokens ?? 0,
    cacheCreationInputTokens: usage.cacheWriteTokens ?? 0,
    webSearchRequests: 0,
    costUSD: costUsd,
    contextWindow: options.contextWindow,
  })
  return Object.fromEntries(rows.map((r) => [r.model, row(r.usage, r.costUsd)]))
}

/**
 * The result's fields: Claude's, then anvil's extras (`reason`, `exit_code`, `model`, `stats`), `extra` last.
 * `cutOff`: the main agent's last reply reached the output token limit; `apiError`: the model's server failed the turn.
 */
export const resultMessage = (
  ctx: ResultContext,
  result: TurnResult,
  how: { readonly signal: ExitSignal | undefined; readonly extra: Record<string, unknown> | undefined; readonly apiError: boolean; readonly cutOff: boolean },
): Record<string, unknown> => {
  const parts = result.usage_parts
  const { signal, extra, apiError, cutOff } = how
  return {
    type: "result",
    subtype: subtypeOf(result),
    is_error: result.status !== "success",
    duration_ms: result.stats.duration_ms,
    duration_api_ms: result.stats.api_ms,
    num_turns: result.stats.steps,
    result: result.answer,
    // The model's last stop: it ended its reply (an answer, even if a denial or verify then failed the turn).
    stop_reason: result.answer !== "" && ["completed", "permission_denied", "verify_failed"].includes(result.reason) ? (cutOff ? "max_tokens" : "end_turn") : null,
    total_cost_usd: ctx.cost?.total() ?? 0,
    usage: {
      ...anthropicUsage(result.usage),
      server_tool_use: { web_search_requests: 0 },
      ...(parts
        ? {
            subagents: anthropicUsage(parts.subagents),
            compaction: anthropicUsage(parts.compaction),
          }
        : {}),
    },
    modelUsage: modelUsageOf(ctx, result),
    permission_denials: [...(result.denials ?? [])],
    ...(result.error !== undefined
      ? { errors: [result.error] }
      : signal !== undefined
        ? { errors: [`interrupted by ${signal}: the turn was cancelled and every process it started was ended`] }
        : result.status !== "success"
          ? { errors: [] }
          : {}),
    // A signal's interruption is reported as such, whatever the turn made of the cancel.
    ...(signal !== undefined ? { reason: "interrupted", signal } : { reason: result.reason }),
    exit_code: exitCodeOf(result, signal),
    model: ctx.model,
    stats: result.stats,
    ...(apiError && isApiError(result) ? apiErrorResult(result) : {}),
    // Claude Code's word for a turn a hook ended (as the SDK host writes it), with anvil's who and why.
    ...(result.reason === "hook_stopped" && signal === undefined ? { terminal_reason: "hook_stopped", hook_stopped: result.hook_stopped } : {}),
    ...extra,
  }
}

/**
 * The result when no session could start (no model, broken configuration, no prompt): Claude's error shape. Its
 * `session_id` is a string as in every result of Claude Code's (typed SDKs read it as one): the session the run
 * asked for, else a new id no session file has.
 */
export const startFailureResult = (
  message: string,
  exitCode: number,
  reason: "config" | "usage" | "plugin_frozen" = "config",
  sessionId?: string,
  now: Date = new Date(),
): Record<string, unknown> => ({
  type: "result",
  subtype: "error_during_execution",
  is_error: true,
  duration_ms: 0,
  duration_api_ms: 0,
  num_turns: 0,
  result: "",
  stop_reason: null,
  session_id: sessionId ?? newSessionId(now.getTime()),
  total_cost_usd: 0,
  usage: anthropicUsage({ inputTokens: 0, outputTokens: 0 }),
  modelUsage: {},
  permission_denials: [],
  errors: [message],
  uuid: randomUUID(),
  timestamp: now.toISOString(),
  reason,
  exit_code: exitCode,
})
