import { ManagedRuntime } from "effect"
import { AgentSession, AgentSetupError, type AgentSessionShape } from "../agent/agent-session.ts"
import { makeClaudeStream, type ClaudeStream } from "../cli/claude-stream.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ThinkingRequest } from "../llm/model.ts"
import { VERSION } from "../version.ts"
import { forHost } from "./host-messages.ts"
import { interruptAfterResult, type HostState } from "./host-state.ts"
import { mcpConfigSources } from "./mcp-config-flag.ts"
import { denyRules, type PermissionBridge } from "./permission-bridge.ts"
import { projectSettings } from "./print-flags.ts"
import { sdkAgents } from "./sdk-agents.ts"
import { skillsOnly } from "./sdk-catalog.ts"
import { sdkCommandName } from "./sdk-commands.ts"
import { makeSdkHooks } from "./sdk-hooks.ts"
import { sdkMcpTools, sdkServerNames } from "./sdk-mcp.ts"
import { thinkingInForce } from "./thinking-flags.ts"
import { sessionLimits } from "./limit-flags.ts"
import { describeEnd } from "../shell/background-end.ts"
import type { BackgroundEvent } from "../shell/background-types.ts"
import { frozenRunReport } from "../cli/freeze-report.ts"

/**
 * The SDK host's session from start to end: opened by the first user message with what the command line and
 * `initialize` asked for (the program's hooks, in-process MCP servers, agents, structured output, permission
 * mode), announced with `system`/`init`, ended when the program closes its input (SessionEnd, servers stopped).
 */

/** The session's messages out, named with its model now (made again when set_model switches it). */
export const streamFor = (state: HostState, opened: AgentSessionShape): ClaudeStream =>
  makeClaudeStream({
    sessionId: opened.id,
    model: opened.model.id,
    contextWindow: opened.model.contextWindow,
    write: (message) => state.line(forHost(message)),
    cost: opened.cost,
  })

const withThinking = (thinking: ThinkingRequest | undefined) => (thinking ? { thinking } : {})

/** Claude's server list: the host's in-process servers (reached through the control channel), then configured ones. */
export const mcpServers = (state: HostState, opened: AgentSessionShape | undefined) => [
  ...sdkServerNames(state.initialize).map((name) => ({ name, status: "connected" })),
  ...(opened?.mcp.views() ?? []).map((v) => ({
    name: v.name,
    status: v.status === "connected" ? "connected" : v.status === "failed" ? "failed" : v.status === "disabled" ? "disabled" : "pending",
    ...(v.serverInfo ? { serverInfo: v.serverInfo } : {}),
    ...(v.error ? { error: v.error } : {}),
  })),
]

/** An open session, and what tells the program it opened (the first user message does; see {@link openSession}). */
export interface OpenedSession {
  readonly session: AgentSessionShape
  /** Writes `system`/`init` and the session's warnings, then runs the program's SessionStart hook. */
  readonly announce: () => Promise<void>
}

/**
 * Opens the session (the first user message does, or a get_context_usage before it): its hooks call `stopTurn`
 * for a `continue: false`. Sets the state's session service, hooks, stream and structured output; rejects with an
 * AgentSetupError when it cannot start. The program hears of it (`init`, SessionStart) only from `announce`, which
 * the first turn calls, as Claude Code's init starts the first turn's messages.
 */
export const openSession = async (state: HostState, bridge: PermissionBridge, stopTurn: (why: string) => void): Promise<OpenedSession> => {
  const { flags, io, initialize, onProblem } = state
  const hookBase = () => ({
    session_id: state.session?.id ?? "",
    transcript_path: state.session?.file ?? "",
    cwd: io.cwd,
    permission_mode: state.mode,
  })
  const hooks = (state.hooks = makeSdkHooks(initialize.hooks, state.channel, hookBase, onProblem, stopTurn, () => state.session?.root ?? io.cwd))
  const hostTools: Array<Tool> = [...(await sdkMcpTools(initialize, state.channel, onProblem))]
  const customAgents = sdkAgents([...flags.agents, initialize.agents], onProblem)
  const schema = flags.jsonSchema ?? (isRecord(initialize.jsonSchema) ? initialize.jsonSchema : undefined)
  const systemPrompt = state.systemPrompt
  let sessionPrompt = systemPrompt
  if (schema !== undefined) {
    const { makeStructuredOutput, STRUCTURED_OUTPUT_INSTRUCTION } = await import("./structured-output.ts")
    const made = makeStructuredOutput(schema)
    if (typeof made === "string") throw new AgentSetupError(made)
    state.structured = made
    hostTools.push(made.tool)
    sessionPrompt = { ...systemPrompt, append: [systemPrompt.append, STRUCTURED_OUTPUT_INSTRUCTION].filter((t) => t !== undefined).join("\n\n") }
  }
  // What a program delivers in `initialize` instead of on the command line (the SDK's *Delivery: "initialize").
  const initMcpConfigs = isRecord(initialize.mcpServers) ? [JSON.stringify({ mcpServers: initialize.mcpServers })] : []
  const disallowed = bridge.disallowed()
  const runtime = ManagedRuntime.make(
    AgentSession.layer({
      cwd: io.cwd,
      env: io.env,
      root: state.root,
      modelFlag: state.model,
      ...(state.http ? { http: state.http } : {}),
      // Claude Code reads CLAUDE.md with the project's settings: a program that leaves "project" out does not want it.
      claudeInstructions: projectSettings(flags),
      customAgents,
      // The mode decides: a session planned in mode plan and resumed in another mode gets every tool back.
      profile: state.mode === "plan" ? "plan" : "code",
      continueLast: flags.continueLast && flags.resume === undefined,
      sessionId: flags.resume,
      fork: flags.forkSession,
      maxSteps: flags.maxTurns,
      // The program's `tools` option chooses among the built-ins; its own MCP tools always come.
      allTools: [...(flags.tools ? state.tools.filter((t) => flags.tools!.includes(t.name)) : state.tools), ...hostTools],
      // What the host names explicitly is offered in every request, never only on demand.
      alwaysOffer: [...flags.allowed.map((r) => r.tool), ...hostTools.map((t) => t.name)],
      allow: flags.allowed,
      onAsk: bridge.ask,
      configOverrides: {
        ...(disallowed.length > 0 ? { permission: denyRules(disallowed) } : {}),
        ...skillsOnly(initialize),
        // As in Claude Code, a sandboxed command is asked about like any other unless the program's settings say
        // sandbox.autoAllowBashIfSandboxed: an allowedTools rule for one command does not let the others through.
        ...(flags.autoAllowSandboxed ? {} : { sandbox: { auto_allow: false } }),
      },
      // A plugin that freezes anvil ends it (exit 8): the watchdog writes a plugins line and the session's result.
      plugins: { onProblem, freezeReport: (id) => frozenRunReport(true, id) },
      mcp: { extraSources: mcpConfigSources([...flags.mcpConfigs, ...initMcpConfigs], io.cwd, onProblem), ...(flags.strictMcpConfig ? { strict: true } : {}) },
      ...(flags.persistSession ? {} : { persist: false }),
      hooks: [bridge.planGuard, ...hooks.entries],
      systemPrompt: sessionPrompt,
      ...(typeof initialize.appendSubagentSystemPrompt === "string" && initialize.appendSubagentSystemPrompt.trim() !== ""
        ? { subagentPromptAppend: initialize.appendSubagentSystemPrompt.trim() }
        : {}),
      ...withThinking(thinkingInForce(flags.thinking, state.thinking?.maxTokens, state.thinking?.display)),
      onSubagentEvent: (parent, event) => {
        state.stream?.event(event, parent)
        interruptAfterResult(state, event)
      },
      ...sessionLimits(flags, io.cwd, onProblem),
    }),
  )
  const opened = await runtime.runPromise(AgentSession).catch(async (e: unknown) => {
    await runtime.dispose()
    throw e
  })
  state.sessionRuntime = runtime
  // As Claude Code's, the init message lists the MCP servers' tools: the first request waits for them anyway.
  await opened.mcpReady
  const stream = (state.stream = streamFor(state, opened))
  state.stopTaskMessages = opened.background.subscribe((e) => {
    for (const message of taskMessages(e)) state.stream?.system(...message)
  })
  const announce = async () => {
    // The stream of the model in use now (a set_model before the first turn made it again).
    const out = state.stream ?? stream
    out.init({
      cwd: io.cwd,
      model: opened.model.id,
      tools: opened.tools.map((t) => t.name),
      mcp_servers: mcpServers(state, opened),
      permissionMode: state.mode,
      version: VERSION,
      profile: opened.profile.name,
      engine: opened.engine,
      resumed: opened.resumed,
      // As the task tool runs them: .claude/agents, the program's, the plugins' (`plugin:agent`).
      ...(opened.agents.length > 0 ? { agents: [...new Set(["explore", ...opened.agents.map((a) => a.name)])] } : {}),
      // Named as supportedCommands() names them.
      slash_commands: opened.commands.map(sdkCommandName),
      // Claude Code lists each plugin's name and path; anvil adds where it came from and whether it loaded.
      plugins: opened.plugins.reports.map((r) => ({ name: r.name, path: r.path, source: r.source, status: r.status })),
    })
    if (flags.ignored.length > 0) out.system("ignored_flags", { flags: flags.ignored, message: `accepted but not acted on: ${flags.ignored.join(", ")}` })
    if (state.ignoredFields !== undefined) out.system("notice", { message: state.ignoredFields })
    // The project file's settings left out for want of trust, as `anvil run --output-format stream-json` reports them.
    if (opened.sandbox.settings.projectIgnored) out.system("warning", { source: "sandbox", message: opened.sandbox.settings.projectIgnored })
    if (opened.settingsIgnored) out.system("warning", { source: "config", message: opened.settingsIgnored })
    if (opened.verifySkipped) out.system("warning", { source: "config", message: opened.verifySkipped })
    for (const note of hooks.invalid) onProblem(note)
    if (hooks.uncalled.length > 0) onProblem(`the host's hooks for ${hooks.uncalled.join(", ")} are never called: anvil has no such events (it calls PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart and SessionEnd)`)
    if (hooks.has("SessionStart")) {
      const verdict = await hooks.call("SessionStart", { source: opened.resumed ? "resume" : "startup" })
      for (const text of verdict.additionalContext) opened.addContext(text)
    }
  }
  return { session: opened, announce }
}

/**
 * A background command's start or end as Claude Code tells a program of its tasks: `task_started`, then
 * `task_updated` with its end status and `task_notification` with `completed`, `failed` (a non-zero exit, its
 * timeout) or `stopped`. A foreground command moved to the background (backgroundTasks()) starts as a task the
 * call waited on (`is_backgrounded: false`), then `task_updated` patches it into the background, as Claude Code
 * tells its Ctrl+B.
 */
const taskMessages = ({ type, shell, callId, outputFile, moved }: BackgroundEvent): ReadonlyArray<[string, Record<string, unknown>]> => {
  const ids = { task_id: shell.id, ...(callId !== undefined ? { tool_use_id: callId } : {}) }
  if (type === "started") {
    const started: [string, Record<string, unknown>] = ["task_started", { ...ids, description: shell.command, task_type: "local_bash", is_backgrounded: !moved }]
    return moved ? [started, ["task_updated", { task_id: shell.id, patch: { is_backgrounded: true } }]] : [started]
  }
  const status = shell.status === "completed" ? "completed" : shell.status === "killed" ? "stopped" : "failed"
  // task_updated carries the raw status (killed, not stopped) and when it ended, in milliseconds since the epoch.
  const patch = { status: shell.status === "completed" ? "completed" : shell.status === "killed" ? "killed" : "failed", end_time: Date.now() }
  return [
    ["task_updated", { task_id: shell.id, patch }],
    ["task_notification", { ...ids, status, output_file: outputFile, summary: `Background command "${shell.command}" ${shell.end ? describeEnd(shell.end) : "ended"}` }],
  ]
}

/** Ends the session, if one opened: the program's SessionEnd hook, then the session's service. */
export const closeSession = async (state: HostState): Promise<void> => {
  state.stopTaskMessages?.()
  if (state.session && state.hooks?.has("SessionEnd")) await state.hooks.call("SessionEnd", { reason: "other" }).catch(() => undefined)
  await state.sessionRuntime?.dispose()
}
