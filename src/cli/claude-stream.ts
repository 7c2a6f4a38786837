import { randomUUID } from "node:crypto"
import type { AgentEvent, TurnResult } from "../agent/events.ts"
import { parseArguments } from "../agent/call-parsing.ts"
import type { CostMeter } from "../agent/cost-meter.ts"
import { apiErrorAssistant, isApiError } from "./claude-api-error.ts"
import { anthropicUsage, resultMessage } from "./claude-result.ts"
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
      const apiError = isApiError(result) && signal === undefined
      if (apiError) send(apiErrorAssistant(result))
      const message = stamp(resultMessage(options, result, { signal, extra, apiError, cutOff: lastCutOff }))
      options.write(message)
      return message
    },
  }
}
