import { Effect } from "effect"
import { isRecord } from "../protocol/is-record.ts"
import { projectRootOfSync } from "../workspace/project-root.ts"
import { hostModel } from "./host-messages.ts"
import { cancelTurn, type HostState } from "./host-state.ts"
import { PERMISSION_MODES, projectSettings, type PermissionMode } from "./print-flags.ts"
import { ConfigError, readConfig } from "../config/config.ts"
import { trustedConfig } from "../runtime.ts"
import { sdkAgentList, sdkModels, skillsOnly } from "./sdk-catalog.ts"
import { sdkCommands } from "./sdk-commands.ts"
import { activeClaudePlugins } from "../plugins/plugin-extras.ts"
import { mcpServers, streamFor } from "./session-lifecycle.ts"
import { contextUsageResponse } from "./sdk-context-usage.ts"
import { initializePlugins } from "./initialize-plugins.ts"
import { thinkingDisplay, thinkingInForce } from "./thinking-flags.ts"
import { ignoredFieldsMessage, ignoredInitializeFields, refusedInitializeField, withoutCacheBoundary } from "./initialize-fields.ts"

/**
 * The program's control requests, each answered with one `control_response`: `initialize` (its hooks, servers,
 * prompts; the commands, subagents, model, pending permission requests and what was applied), `interrupt`,
 * `set_permission_mode`, `set_model`, `set_max_thinking_tokens`, `get_context_usage`, `mcp_status`, `stop_task`,
 * `get_task_output` and `background_tasks` (background commands); any other subtype gets an error response.
 */

type Json = Record<string, unknown>

/** What get_task_output returns of a background command's output: its end, as Claude Code's does. */
const TASK_OUTPUT_BYTES = 8 * 1024

/**
 * The system prompt `initialize` gives: a string or a list of parts replaces anvil's (without the SDK's cache
 * boundary marker), `appendSystemPrompt` is added, and `planModeInstructions` say how to work in plan mode.
 */
const initializePrompt = (request: Json, current: HostState["systemPrompt"]): HostState["systemPrompt"] => {
  let prompt = current
  const parts = Array.isArray(request.systemPrompt) ? request.systemPrompt : [request.systemPrompt]
  const text = withoutCacheBoundary(parts.filter((s): s is string => typeof s === "string").join("\n\n"))
  if (text !== "") prompt = { ...prompt, replace: text }
  const append = [
    typeof request.appendSystemPrompt === "string" ? request.appendSystemPrompt.trim() : "",
    typeof request.planModeInstructions === "string" && request.planModeInstructions.trim() !== ""
      ? `# Plan mode\nWhile the session is in plan mode (read-only tools; it changes nothing), work this way:\n${request.planModeInstructions.trim()}`
      : "",
  ].filter((t) => t !== "")
  if (append.length > 0) prompt = { ...prompt, append: append.join("\n\n") }
  return prompt
}

/** Answers one `control_request` line. */
export const handleControl = async (state: HostState, message: Json): Promise<void> => {
  const { channel } = state
  const id = typeof message.request_id === "string" ? message.request_id : ""
  const request = isRecord(message.request) ? message.request : {}
  switch (request.subtype) {
    case "initialize": {
      const refused = refusedInitializeField(request)
      if (refused !== undefined) return channel.fail(id, refused)
      state.initialize = request
      const ignored = ignoredInitializeFields(request)
      state.ignoredFields = ignored.length > 0 ? ignoredFieldsMessage(ignored) : undefined
      if (state.ignoredFields !== undefined) state.io.err(`anvil: ${state.ignoredFields}\n`)
      state.systemPrompt = initializePrompt(request, state.systemPrompt)
      const withPlugins = initializePlugins(request.plugins, state.io, state.session !== undefined, state.onProblem)
      state.io = withPlugins.io
      const io = state.io
      const root = projectRootOfSync(io.cwd, state.root)
      const read = await readConfig({ root, env: io.env, overrides: skillsOnly(request) })
      // The configuration in force, as the session will have it (the project's settings that need trust left out).
      const config = read instanceof ConfigError ? undefined : await Effect.runPromise(trustedConfig(read, root))
      // The active plugins are found once for the commands, skills and agents they bring.
      const plugins = config === undefined ? [] : activeClaudePlugins({ root, env: io.env, config })
      channel.succeed(id, {
        commands: await sdkCommands(root, io.env, config, plugins),
        agents: sdkAgentList([...state.flags.agents, request.agents], plugins, { root, env: io.env, withProject: projectSettings(state.flags) }),
        output_style: "default",
        available_output_styles: ["default"],
        models: sdkModels(config, state.model),
        account: {},
        pid: process.pid,
        pending_permission_requests: channel.pending(),
        // The hooks are registered, and a matcher's onFailure is honoured (the SDK refuses "block" without this).
        ...(isRecord(request.hooks) && Object.keys(request.hooks).length > 0 ? { hooks_applied: true } : {}),
        hook_on_failure_supported: true,
        ...(withPlugins.applied !== undefined ? { plugins_applied: withPlugins.applied } : {}),
        ...(request.mcpServers !== undefined ? { mcp_servers_applied: isRecord(request.mcpServers) } : {}),
        ...(request.disallowedTools !== undefined ? { disallowed_tools_applied: Array.isArray(request.disallowedTools) } : {}),
        ...(ignored.length > 0 ? { ignored_fields: ignored.map((i) => i.field) } : {}),
      })
      return
    }
    case "interrupt":
      cancelTurn(state)
      channel.succeed(id)
      return
    case "set_permission_mode":
      if (PERMISSION_MODES.includes(request.mode as PermissionMode)) {
        state.mode = request.mode as PermissionMode
        channel.succeed(id, { mode: state.mode })
      } else channel.fail(id, `unknown permission mode '${String(request.mode)}' (${PERMISSION_MODES.join(", ")})`)
      return
    case "set_model": {
      // No model: back to the configured one. A running session switches for its next requests.
      const wanted = typeof request.model === "string" && request.model !== "" ? hostModel(request.model) : undefined
      const session = state.session
      if (!session) {
        state.model = wanted
        channel.succeed(id, { model: wanted ?? null })
        return
      }
      try {
        const switched = await session.setModel(wanted ?? "")
        state.model = wanted
        state.stream = streamFor(state, session)
        channel.succeed(id, { model: switched.id })
      } catch (e) {
        channel.fail(id, (e as Error).message)
      }
      return
    }
    // The program's look at a background command (Bash run_in_background) and its way to stop one.
    case "get_task_output":
    case "stop_task": {
      const background = state.session?.background
      const taskId = typeof request.task_id === "string" ? request.task_id : ""
      if (!background) return channel.fail(id, `no background task '${taskId}': the session has not started`)
      const done = await Effect.runPromise(
        Effect.result(request.subtype === "stop_task" ? Effect.as(background.stop(taskId, "host"), {}) : Effect.map(background.tail(taskId, TASK_OUTPUT_BYTES), (t) => ({ output: t.text, total_bytes: t.totalBytes, truncated: t.truncated }))),
      )
      if (done._tag === "Success") channel.succeed(id, done.success)
      else channel.fail(id, `no background task '${taskId}'${done.failure.known.length > 0 ? ` (the session's: ${done.failure.known.join(", ")})` : ""}`)
      return
    }
    // Claude Code's Ctrl+B: running foreground commands (all, or the one of a tool_use id) go on in the background,
    // their calls answered at once. False only when a given id named no running command: with no id, nothing to
    // move is no failure.
    case "background_tasks": {
      const toolUseId = typeof request.tool_use_id === "string" && request.tool_use_id !== "" ? request.tool_use_id : undefined
      const background = state.session?.background
      const moved = background ? await Effect.runPromise(background.moveToBackground(toolUseId)) : 0
      channel.succeed(id, { backgrounded: moved > 0 || toolUseId === undefined })
      return
    }
    // What the next model request would hold, by part (estimated: anvil asks no token-count API).
    // Before the first message too, as Claude Code answers: the session opens now (the system prompt, tools and
    // instruction files it measures are the session's), and the first turn announces it.
    case "get_context_usage": {
      try {
        const session = state.session ?? (await state.ensureSession!())
        channel.succeed(id, contextUsageResponse(session.contextUsage(), state.lastUsage))
      } catch (e) {
        channel.fail(id, `no context: the session cannot open (${(e as Error).message ?? String(e)})`)
      }
      return
    }
    case "set_max_thinking_tokens": {
      const budget = request.max_thinking_tokens
      const display = request.thinking_display
      if (budget !== undefined && budget !== null && !(typeof budget === "number" && Number.isInteger(budget) && budget >= 0)) {
        return channel.fail(id, `max_thinking_tokens is a whole number of tokens or null, not ${JSON.stringify(budget)}`)
      }
      const shown = typeof display === "string" ? thinkingDisplay(display, "thinking_display") : {}
      if (display !== undefined && display !== null && typeof display !== "string") return channel.fail(id, `thinking_display is summarized, omitted or null, not ${JSON.stringify(display)}`)
      if (shown.error !== undefined && display !== "highlights") return channel.fail(id, shown.error)
      // For the next model requests of the open session, or from the first one of the session about to open. As Claude
      // Code answers a display the session cannot send (highlights): an error, the display as it was, the budget applied.
      const newDisplay = display === null ? { display: null } : shown.display !== undefined ? { display: shown.display } : {}
      state.thinking = { ...state.thinking, ...(budget !== undefined ? { maxTokens: budget as number | null } : {}), ...newDisplay }
      state.session?.setThinking(thinkingInForce(state.flags.thinking, state.thinking.maxTokens, state.thinking.display))
      if (shown.error !== undefined) return channel.fail(id, `${shown.error}; the display stays as it was`)
      channel.succeed(id)
      return
    }
    case "mcp_status":
      channel.succeed(id, { mcpServers: mcpServers(state, state.session) })
      return
    default:
      channel.fail(id, `anvil does not support the control request '${String(request.subtype)}'`)
  }
}
