import { randomUUID } from "node:crypto"
import type { AgentEvent, TurnResult } from "../agent/events.ts"
import { parseArguments } from "../agent/call-parsing.ts"
import { newSessionId } from "../agent/session-id.ts"
import type { Usage } from "../llm/model.ts"
import type { CostMeter } from "../agent/cost-meter.ts"
import { apiErrorAssistant, apiErrorResult, isApiError } from "./claude-api-error.ts"
import { exitCodeOf } from "./exit-codes.ts"
import type { ExitSignal } from "./signals.ts"

/**
 * anvil's machine-readable output in the shapes of Claude Code's
 * `-p --output-format stream-json / json` (the Agent SDK's SDKMessage types),
 * so programs written for those read anvil: `system`/`init`, `assistant` with
 * `message.content` blocks, `user` with `tool_result` blocks, `result`.
 *
 * This is the one place that builds Claude-shaped messages; `anvil run` (both
 * formats, both input modes) and any host speaking Claude's protocol write
 * through it. anvil's own facts travel as extra keys beside the expected
 * ones, never instead of them: every message carries `timestamp` (ISO 8601),
 * tool results carry the raw `envelope` and `execution_meta`, the result
 * `reason`, `exit_code` and `stats`. Differences from Claude Code are listed
 * in the README ("Scripting anvil").
 */

/** What the `system`/`init` message reports about the session. */
export interface InitInfo {
  readonly cwd: string
  readonly model: string
  readonly tools: ReadonlyArray<string>
  /** Claude Code's permission mode in force (`anvil run`: default, or bypassPermissions with --yes). */
  readonly permissionMode: "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk"
  readonly version: string
  /** anvil's extras. */
  readonly profile: string
  readonly engine: string
  readonly resumed: boolean
  readonly skills?: ReadonlyArray<string>
  /** The command sandbox in force (anvil's extra). */
  readonly sandbox?: unknown
  /** The MCP servers configured, with their state (Claude Code's `{name, status}`). */
  readonly mcp_servers?: ReadonlyArray<{ readonly name: string; readonly status: string }>
  /** The plugins found, with anvil's source and status of each (Claude Code lists name and path). */
  readonly plugins?: ReadonlyArray<{ readonly name: string } & Record<string, unknown>>
  /** The subagents the task tool runs, when the caller defined its own. */
  readonly agents?: ReadonlyArray<string>
  /** The custom slash commands a prompt may name (without the `/`). */
  readonly slash_commands?: ReadonlyArray<string>
}

export interface ClaudeStreamOptions {
  readonly sessionId: string
  readonly model: string
  readonly contextWindow: number
  /** Receives each message, ready to be written as one JSON line. */
  readonly write: (message: Record<string, unknown>) => void
  readonly now?: () => Date
  /** The session's spend: the result's `total_cost_usd` and `modelUsage` (cumulative, as Claude Code's). */
  readonly cost?: CostMeter
}

const anthropicUsage = (u: Usage) => ({
  input_tokens: u.inputTokens,
  output_tokens: u.outputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
})

/** Claude's result subtypes; the precise cause is in the extra `reason` key. */
const subtypeOf = (result: TurnResult): string =>
  result.reason === "completed" || result.reason === "hook_stopped"
    ? "success"
    : result.reason === "max_steps"
      ? "error_max_turns"
      : result.reason === "max_budget"
        ? "error_max_budget_usd"
        : "error_during_execution"

export interface ClaudeStream {
  /** The first message of a session. */
  readonly init: (info: InitInfo) => void
  /** A `system` message of another subtype (a configuration warning, a notice), `fields` as given. */
  readonly system: (subtype: string, fields: Record<string, unknown>) => void
  /** An agent event as zero or one messages; `parent` is the task call a subagent's event belongs to. */
  readonly event: (event: AgentEvent, parent?: string) => void
  /** The result message (also the whole output of `--format json`); returned as well as written. `extra` keys are added last. */
  readonly result: (result: TurnResult, signal?: ExitSignal, extra?: Record<string, unknown>) => Record<string, unknown>
}

/**
 * A tool_use block: Claude's `input` is always an object, so arguments that are not a JSON object (the model
 * wrote broken JSON; the tool answered INVALID_PARAM) give `{}` and travel as text in anvil's extra `raw_input`.
 */
const toolUseBlock = (call: { readonly id: string; readonly name: string; readonly arguments: string }): Record<string, unknown> => {
  const input = parseArguments(call.arguments)
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? { type: "tool_use", id: call.id, name: call.name, input }
    : { type: "tool_use", id: call.id, name: call.name, input: {}, raw_input: call.arguments }
}

/** Claude's per-model totals: the session's, from its cost meter; without one, this turn's tokens under the session's model. */
const modelUsageOf = (options: ClaudeStreamOptions, result: TurnResult): Record<string, unknown> => {
  const rows = options.cost?.byModel() ?? [{ model: options.model, usage: result.usage, costUsd: 0 }]
  const row = (usage: Usage, costUsd: number) => ({
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD: costUsd,
    contextWindow: options.contextWindow,
  })
  return Object.fromEntries(rows.map((r) => [r.model, row(r.usage, r.costUsd)]))
}

export const makeClaudeStream = (options: ClaudeStreamOptions): ClaudeStream => {
  const now = options.now ?? (() => new Date())
  const stamp = (message: Record<string, unknown>) => ({
    ...message,
    session_id: options.sessionId,
    uuid: randomUUID(),
    timestamp: now().toISOString(),
  })
  const send = (message: Record<string, unknown>) => options.write(stamp(message))
  // Whether the main agent's last reply was cut at the output token limit: the result's stop_reason says max_tokens then.
  let lastCutOff = false
  return {
    init: (info) =>
      send({
        type: "system",
        subtype: "init",
        cwd: info.cwd,
        tools: [...info.tools],
        mcp_servers: [...(info.mcp_servers ?? [])],
        model: info.model,
        permissionMode: info.permissionMode,
        slash_commands: [...(info.slash_commands ?? [])],
        apiKeySource: "none",
        // Claude Code's version field is required by the SDK's types; anvil names its own version there.
        claude_code_version: info.version,
        output_style: "default",
        agents: [...(info.agents ?? [])],
        skills: [...(info.skills ?? [])],
        plugins: [...(info.plugins ?? [])],
        anvil_version: info.version,
        profile: info.profile,
        engine: info.engine,
        resumed: info.resumed,
        ...(info.sandbox !== undefined ? { sandbox: info.sandbox } : {}),
      }),
    system: (subtype, fields) => send({ type: "system", subtype, ...fields }),
    event: (event, parent) => {
      const parent_tool_use_id = parent ?? null
      switch (event.type) {
        case "assistant": {
          if (parent === undefined) lastCutOff = event.cut_off === true
          // Thinking first, as Claude's messages have it; a redacted block keeps only its encrypted data.
          const content: Array<Record<string, unknown>> = (event.thinking ?? []).map((b) =>
            b.redacted !== undefined ? { type: "redacted_thinking", data: b.redacted } : { type: "thinking", thinking: b.thinking, signature: b.signature ?? "" },
          )
          if (event.text !== "") content.push({ type: "text", text: event.text })
          for (const call of event.tool_calls) content.push(toolUseBlock(call))
          send({
            type: "assistant",
            message: {
              id: `msg_${randomUUID().replaceAll("-", "")}`,
              type: "message",
              role: "assistant",
              model: event.model ?? options.model,
              content,
              stop_reason: event.cut_off ? "max_tokens" : event.tool_calls.length > 0 ? "tool_use" : "end_turn",
              stop_sequence: null,
              usage: anthropicUsage(event.usage),
            },
            parent_tool_use_id,
            ...(event.react ? { react: event.react } : {}),
          })
          return
        }
        case "tool_result": {
          const isError = event.envelope.status === "error"
          send({
            type: "user",
            message: {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: event.id, content: event.envelope.text, is_error: isError }],
            },
            parent_tool_use_id,
            // Claude Code puts a failed call's error there as "Error: <message>", its structured output otherwise.
            tool_use_result: isError ? `Error: ${event.envelope.error?.message ?? event.envelope.text}` : event.envelope.data,
            envelope: event.envelope,
            execution_meta: event.execution_meta,
            elapsed_ms: event.elapsed_ms,
          })
          return
        }
        case "compaction":
          send({
            type: "system",
            subtype: "compact_boundary",
            compact_metadata: { trigger: "auto", pre_tokens: event.tokens_before },
            replaced: event.replaced,
            post_tokens: event.tokens_after,
            parent_tool_use_id,
          })
          return
        case "retry":
          send({
            type: "system",
            subtype: "api_retry",
            attempt: event.attempt,
            max_retries: event.max_retries,
            retry_delay_ms: event.delay_ms,
            error_status: event.status ?? null,
            error: event.message,
            parent_tool_use_id,
          })
          return
        case "model_fallback":
          send({ type: "system", subtype: "model_fallback", model: event.from, fallback_model: event.to, error: event.message, parent_tool_use_id })
          return
        case "verify":
          send({ type: "system", subtype: "verify", command: event.command, passed: event.passed, exit_code: event.exit_code, output: event.output })
          return
        case "hook_stopped":
          // As the SDK host tells a host hook's `continue: false`: the reason is the person's.
          send({ type: "system", subtype: "hook_stopped", message: event.reason, plugin: event.plugin, parent_tool_use_id })
          return
        default:
          // Streaming deltas, step marks, raw responses and errors: the result carries the error; the rest is for terminals.
          return
      }
    },
    result: (result, signal, extra) => {
      const parts = result.usage_parts
      const apiError = isApiError(result) && signal === undefined
      if (apiError) send(apiErrorAssistant(result))
      const message = stamp({
        type: "result",
        subtype: subtypeOf(result),
        is_error: result.status !== "success",
        duration_ms: result.stats.duration_ms,
        duration_api_ms: result.stats.api_ms,
        num_turns: result.stats.steps,
        result: result.answer,
        // The model's last stop: it ended its reply (an answer, even if a denial or verify then failed the turn).
        stop_reason: result.answer !== "" && ["completed", "permission_denied", "verify_failed"].includes(result.reason) ? (lastCutOff ? "max_tokens" : "end_turn") : null,
        total_cost_usd: options.cost?.total() ?? 0,
        usage: {
          ...anthropicUsage(result.usage),
          server_tool_use: { web_search_requests: 0 },
          ...(parts
            ? {
                subagents: { input_tokens: parts.subagents.inputTokens, output_tokens: parts.subagents.outputTokens },
                compaction: { input_tokens: parts.compaction.inputTokens, output_tokens: parts.compaction.outputTokens },
              }
            : {}),
        },
        modelUsage: modelUsageOf(options, result),
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
        model: options.model,
        stats: result.stats,
        ...(apiError ? apiErrorResult(result) : {}),
        // Claude Code's word for a turn a hook ended (as the SDK host writes it), with anvil's who and why.
        ...(result.reason === "hook_stopped" && signal === undefined ? { terminal_reason: "hook_stopped", hook_stopped: result.hook_stopped } : {}),
        ...extra,
      })
      options.write(message)
      return message
    },
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
