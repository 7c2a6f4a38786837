import { Deferred, Effect, type ManagedRuntime } from "effect"
import type { AgentSession, AgentSessionShape, AgentSetupError } from "../agent/agent-session.ts"
import type { ClaudeStream } from "../cli/claude-stream.ts"
import { EXIT } from "../cli/exit-codes.ts"
import type { CliIO } from "../cli/output.ts"
import type { ModelHttpShape } from "../llm/http.ts"
import type { Usage } from "../llm/model.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ControlChannel } from "./control-channel.ts"
import { hostModel } from "./host-messages.ts"
import type { PermissionMode, PrintFlags } from "./print-flags.ts"
import type { SdkHooks } from "./sdk-hooks.ts"
import type { StructuredOutput } from "./structured-output.ts"

type Json = Record<string, unknown>

/**
 * What one SDK host process keeps while it runs, shared by its parts (control requests, the permission bridge,
 * the session's lifecycle, the turns): the fixed facts it started with, and what the program's requests and the
 * opening session set.
 */
export interface HostState {
  readonly flags: PrintFlags
  /** The run's streams, folder and environment (the plugin folders of `initialize` join its ANVIL_PLUGIN_DIRS). */
  io: CliIO
  readonly root: string | undefined
  /** How the session's models reach their servers: logged with --debug / --debug-file, else anvil's own. */
  readonly http?: ModelHttpShape
  /** The built-in tools (the program's `tools` option chooses among them). */
  readonly tools: ReadonlyArray<Tool>
  readonly channel: ControlChannel
  /** Writes one message line to the program. */
  readonly line: (message: Json) => void
  /** A problem the program is told of: on stderr, and as a `system` notice once the session's stream is open. */
  readonly onProblem: (message: string) => void
  /** The permission mode: the flag's, then set_permission_mode's or a `setMode` update's. */
  mode: PermissionMode
  /** The program's `initialize` request (hooks, in-process MCP servers, agents, …). */
  initialize: Json
  /** What the program's `initialize` asked for that anvil does not do (initialize-fields.ts), said again at init. */
  ignoredFields: string | undefined
  /** The program's system prompt: replacing anvil's, or added after it. */
  systemPrompt: { replace?: string; append?: string }
  /** The model the session opens with: the flag's, or set_model's before the session opened. */
  model: string | undefined
  /** The program's hooks, made when the session opens. */
  hooks: SdkHooks | undefined
  /** The session, opened by the first user message (or a get_context_usage before it). */
  session: AgentSessionShape | undefined
  /** Opens the session if it is not open yet (HostTurns.ensureSession), for a control request that needs it. */
  ensureSession: (() => Promise<AgentSessionShape>) | undefined
  /** The session's service; disposing it ends the session. */
  sessionRuntime: ManagedRuntime.ManagedRuntime<AgentSession, AgentSetupError> | undefined
  /** The session's messages out, named with its model now. */
  stream: ClaudeStream | undefined
  /** `--json-schema` / `initialize.jsonSchema`: the StructuredOutput tool and the answer it took. */
  structured: StructuredOutput | undefined
  /** Stops the `task_started` / `task_notification` messages of background commands (before the session closes). */
  stopTaskMessages: (() => void) | undefined
  /** Completes to end the running turn (an interrupt, a signal, a host's answer or hook). */
  cancel: Deferred.Deferred<void> | undefined
  /**
   * The calls the host denied with `interrupt: true`: the turn ends once each one's result (the host's message) is
   * out, as Claude Code ends it, rather than while the call is still deciding (which would make it a cancellation).
   */
  readonly interruptAfter: Set<string>
  /** Aborts when the turn is ended while a host hook around it (UserPromptSubmit, Stop) is awaited. */
  hooksAbort: AbortController | undefined
  /** The usage of the session's last model response (for get_context_usage). */
  lastUsage: Usage | undefined
  /** The thinking budget and display set_max_thinking_tokens asked for (see thinking-flags.ts thinkingInForce). */
  thinking: { readonly maxTokens?: number | null; readonly display?: "summarized" | "omitted" | null } | undefined
  /** The process's exit status so far. */
  exitCode: number
}

export const makeHostState = (fixed: Pick<HostState, "flags" | "io" | "root" | "tools" | "channel" | "line" | "http">): HostState => {
  const state: HostState = {
    ...fixed,
    onProblem: (message) => {
      fixed.io.err(`anvil: ${message}\n`)
      state.stream?.system("notice", { message })
    },
    mode: fixed.flags.permissionMode,
    initialize: {},
    ignoredFields: undefined,
    systemPrompt: {
      ...(fixed.flags.systemPrompt !== undefined ? { replace: fixed.flags.systemPrompt } : {}),
      ...(fixed.flags.appendSystemPrompt !== undefined ? { append: fixed.flags.appendSystemPrompt } : {}),
    },
    model: hostModel(fixed.flags.model),
    hooks: undefined,
    session: undefined,
    ensureSession: undefined,
    sessionRuntime: undefined,
    stream: undefined,
    structured: undefined,
    stopTaskMessages: undefined,
    cancel: undefined,
    interruptAfter: new Set(),
    hooksAbort: undefined,
    lastUsage: undefined,
    thinking: undefined,
    exitCode: EXIT.ok,
  }
  return state
}

/** Ends the turn when `event` is the result of a call the host denied with `interrupt: true`. */
export const interruptAfterResult = (state: HostState, event: { readonly type: string; readonly id?: string }): void => {
  if (event.type === "tool_result" && event.id !== undefined && state.interruptAfter.delete(event.id)) cancelTurn(state)
}

/** Ends the running turn, if one runs. */
export const cancelTurn = (state: HostState): void => {
  if (state.cancel) Effect.runSync(Deferred.succeed(state.cancel, undefined))
  state.hooksAbort?.abort()
}
