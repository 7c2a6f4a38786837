import { Deferred, Effect, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { resolve } from "node:path"
import { AgentSession, AgentSetupError, type AgentSessionShape } from "../agent/agent-session.ts"
import { turnWithoutSteps, type TurnResult } from "../agent/events.ts"
import { planRefusal, PROFILES } from "../agent/profiles.ts"
import type { HookEntry } from "../plugins/hook-runner.ts"
import { makeClaudeStream, startFailureResult, type ClaudeStream } from "../cli/claude-stream.ts"
import { EXIT, exitCodeOf } from "../cli/exit-codes.ts"
import { inputMessages } from "../cli/input-stream.ts"
import { guardNodeStreams, type CliIO } from "../cli/output.ts"
import { cancellingLine, outputReaderGone, watchSignals } from "../cli/signals.ts"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { VERSION } from "../version.ts"
import { callParams, claudeName, toClaudeCall, toClaudeInput } from "../tool-framework/claude-tools.ts"
import { makeControlChannel } from "./control-channel.ts"
import { allowCovers, type AllowRule } from "../permission/rules.ts"
import { claudeRule, PERMISSION_MODES, parsePrintFlags, splitToolList, type PermissionMode, type PrintFlags } from "./print-flags.ts"
import { makeSdkHooks, type SdkHooks } from "./sdk-hooks.ts"
import { mcpConfigSources } from "./mcp-config-flag.ts"
import { sdkMcpTools, sdkServerNames } from "./sdk-mcp.ts"
import { sdkAgents } from "./sdk-agents.ts"
import { sdkCommands } from "./sdk-commands.ts"
import { projectRootOfSync } from "../workspace/project-root.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { StructuredOutput } from "./structured-output.ts"

/**
 * The Claude Agent SDK host: started with Claude Code's print-mode flags and
 * no subcommand (as the SDK starts `pathToClaudeCodeExecutable`), anvil speaks
 * the SDK's line protocol on stdin/stdout. User messages are turns of one
 * agent session; control requests are answered; an "ask" goes to the host as
 * `can_use_tool`; the host's hooks are called back with `hook_callback`. The
 * messages out are `anvil run`'s Claude-shaped stream with tool names and
 * inputs translated to Claude's at this edge.
 */

type Json = Record<string, unknown>

/** Tools that only change files: approved without asking in `acceptEdits` mode. */
const EDIT_TOOLS = new Set(["write", "edit", "multiedit", "patch"])

/** How many times a Stop hook's `decision: "block"` may send a turn back to the model. */
const STOP_HOOK_CONTINUATIONS = 8


/** A model named as SDK programs name it ("claude-sonnet-4-5") goes to the Anthropic provider. */
export const hostModel = (model: string | undefined): string | undefined =>
  model === undefined ? undefined : model.includes("/") ? model : /^claude-/.test(model) ? `anthropic/${model}` : model

/** Translates one outgoing message to the names the host sees. */
const forHost = (message: Json): Json => {
  if (message.type === "system" && message.subtype === "init" && Array.isArray(message.tools)) {
    return { ...message, tools: message.tools.map((t) => (typeof t === "string" ? claudeName(t) : t)) }
  }
  if (message.type === "assistant" && isRecord(message.message) && Array.isArray(message.message.content)) {
    const content = message.message.content.map((block) =>
      isRecord(block) && block.type === "tool_use" && typeof block.name === "string" && isRecord(block.input) ? { ...block, ...toClaudeCall(block.name, block.input) } : block,
    )
    return { ...message, message: { ...message.message, content } }
  }
  if (message.type === "result" && message.reason === "permission_denied") {
    // Claude Code lists denials without failing the turn: a program reads them from permission_denials.
    return forHost({ ...message, subtype: "success", is_error: false, reason: "completed_with_denials" })
  }
  if (message.type === "result" && Array.isArray(message.permission_denials)) {
    const denials = message.permission_denials.map((d) => {
      if (!isRecord(d) || typeof d.tool_name !== "string") return d
      const call = toClaudeCall(d.tool_name, isRecord(d.tool_input) ? d.tool_input : {})
      return { ...d, tool_name: call.name, tool_input: isRecord(d.tool_input) ? call.input : d.tool_input }
    })
    return { ...message, permission_denials: denials }
  }
  return message
}

/** `-p` without stream-json input: one prompt, run as `anvil run` would with the translated options. */
const printArgs = (flags: PrintFlags): Array<string> => {
  const model = hostModel(flags.model)
  return [
    ...(flags.prompt !== "" ? [flags.prompt] : []),
    "--format",
    flags.outputFormat,
    ...(model ? ["--model", model] : []),
    ...(flags.maxTurns ? ["--max-steps", String(flags.maxTurns)] : []),
    ...(flags.permissionMode === "bypassPermissions" ? ["--yes"] : []),
    ...(flags.permissionMode === "acceptEdits" ? [...EDIT_TOOLS].flatMap((t) => ["--allow", t]) : []),
    ...(flags.permissionMode === "plan" ? ["--profile", "plan"] : flags.resume || flags.continueLast ? ["--profile", "code"] : []),
    ...flags.allowed.flatMap((r) => ["--allow", r.pattern === undefined ? r.tool : `${r.tool}:${r.pattern}`]),
    ...(flags.resume ? ["--session", flags.resume] : flags.continueLast ? ["--continue"] : []),
  ]
}

/** anvil.json `permission` rules for `--disallowedTools`: deny always wins. */
const denyRules = (disallowed: ReadonlyArray<AllowRule>): Json => {
  const permission: Record<string, Json | string> = {}
  for (const rule of disallowed) {
    if (rule.pattern === undefined) permission[rule.tool] = "deny"
    else {
      const entry = permission[rule.tool]
      if (entry !== "deny") permission[rule.tool] = { ...(isRecord(entry) ? entry : {}), [rule.pattern]: "deny" }
    }
  }
  return permission
}

export const sdkHostCommand = async (argv: ReadonlyArray<string>, given: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>): Promise<number> => {
  const flags = parsePrintFlags(argv)
  if (flags.errors.length > 0) {
    given.err(`${flags.errors.map((e) => `anvil: ${e}\n`).join("")}Run 'anvil --help' for usage.\n`)
    return EXIT.usage
  }
  // The program's plugins (`--plugin-dir`) are found where plugin discovery looks for a run's extra folders.
  const io: CliIO =
    flags.pluginDirs.length === 0
      ? given
      : {
          ...given,
          env: {
            ...given.env,
            ANVIL_PLUGIN_DIRS: [...(given.env.ANVIL_PLUGIN_DIRS ?? "").split(":").filter((d) => d !== ""), ...flags.pluginDirs.map((d) => resolve(given.cwd, d))].join(":"),
          },
        }
  if (flags.inputFormat !== "stream-json" || flags.outputFormat !== "stream-json") {
    const needsStreamInput = [...(flags.jsonSchema !== undefined ? ["--json-schema"] : []), ...(flags.settingSources !== undefined ? ["--setting-sources"] : []), ...(flags.agents.length > 0 ? ["--agents"] : [])]
    const ignored = [...flags.ignored, ...needsStreamInput.map((f) => `${f} (honoured with --input-format stream-json)`)]
    if (ignored.length > 0) io.err(`anvil: accepted but not acted on: ${ignored.join(", ")}\n`)
    const { runCommand } = await import("../cli/run-command.ts")
    // What `anvil run` has no flag for goes in directly: a dropped --disallowedTools would run what the caller forbade.
    const mcpSources = mcpConfigSources(flags.mcpConfigs, io.cwd, (message) => io.err(`anvil: ${message}\n`))
    return runCommand(printArgs(flags), io, root, flags.tools ? tools.filter((t) => flags.tools!.includes(t.name)) : tools, false, {
      ...(flags.disallowed.length > 0 ? { configOverrides: { permission: denyRules(flags.disallowed) } } : {}),
      ...(flags.systemPrompt !== undefined || flags.appendSystemPrompt !== undefined
        ? { systemPrompt: { ...(flags.systemPrompt !== undefined ? { replace: flags.systemPrompt } : {}), ...(flags.appendSystemPrompt !== undefined ? { append: flags.appendSystemPrompt } : {}) } }
        : {}),
      ...(mcpSources.length > 0 ? { mcpSources } : {}),
    })
  }
  guardNodeStreams()
  const line = (message: Json) => io.out(`${JSON.stringify(message)}\n`)
  const channel = makeControlChannel(line)
  let mode: PermissionMode = flags.permissionMode
  let hooks: SdkHooks | undefined
  let hookConfig: unknown
  let initialize: Json = {}
  let systemPrompt: { replace?: string; append?: string } = {
    ...(flags.systemPrompt !== undefined ? { replace: flags.systemPrompt } : {}),
    ...(flags.appendSystemPrompt !== undefined ? { append: flags.appendSystemPrompt } : {}),
  }
  let session: AgentSessionShape | undefined
  /** `--json-schema` / `initialize.jsonSchema`: the StructuredOutput tool and the answer it took. */
  let structured: StructuredOutput | undefined
  /** The session's service, built on the first prompt; disposing it ends the session. */
  let sessionRuntime: ManagedRuntime.ManagedRuntime<AgentSession, AgentSetupError> | undefined
  let stream: ClaudeStream | undefined
  let model = hostModel(flags.model)
  let cancel: Deferred.Deferred<void> | undefined
  let code: number = EXIT.ok
  const problems: Array<string> = []
  const onProblem = (message: string) => {
    problems.push(message)
    io.err(`anvil: ${message}\n`)
    if (stream) stream.system("notice", { message })
  }

  /** Rules the host approved for the rest of the session (`updatedPermissions` with `addRules`). */
  const sessionRules: Array<AllowRule> = []
  /** What the host may send back to approve such calls for the session: one rule per subject (command, path), or the tool. */
  const suggestions = (request: PermissionRequest, name: string) => [
    {
      type: "addRules",
      rules: request.subjects && request.subjects.values.length > 0 ? request.subjects.values.map((v) => ({ toolName: name, ruleContent: v })) : [{ toolName: name }],
      behavior: "allow",
      destination: "session",
    },
  ]
  /** A host's `updatedPermissions`: allow rules join the session's, `setMode` changes the mode; the rest is not kept. */
  const applyUpdates = (updates: unknown) => {
    if (!Array.isArray(updates)) return
    for (const u of updates.filter(isRecord)) {
      if (u.type === "setMode" && PERMISSION_MODES.includes(u.mode as PermissionMode)) mode = u.mode as PermissionMode
      if (u.type !== "addRules" || u.behavior !== "allow" || !Array.isArray(u.rules)) continue
      for (const r of u.rules.filter(isRecord)) {
        if (typeof r.toolName !== "string") continue
        const rule = claudeRule(typeof r.ruleContent === "string" && r.ruleContent !== "" ? `${r.toolName}(${r.ruleContent})` : r.toolName)
        if (rule) sessionRules.push(rule)
      }
    }
  }

  /** Who answers an "ask" here: the mode first, then the host (can_use_tool) or, without one, a denial. */
  const ask = (request: PermissionRequest): Effect.Effect<AskAnswer> =>
    Effect.promise(async (): Promise<AskAnswer> => {
      const name = claudeName(request.tool.name)
      const params = isRecord(request.params) ? request.params : {}
      if (mode === "bypassPermissions") return "once"
      // A command leaving the sandbox is asked about every time, as anvil's own "always" answers count once there.
      if (!request.unconfined && sessionRules.some((rule) => allowCovers(rule, request.tool.name, request.subjects))) return "once"
      if (mode === "acceptEdits" && EDIT_TOOLS.has(request.tool.name)) return "once"
      if (mode === "dontAsk") return { deny: `Permission mode dontAsk: the ${name} call was not pre-approved, so it was denied.` }
      if (mode === "plan" && request.tool.readOnly !== true) return { deny: planRefusal(name) }
      if (!flags.promptToolStdio) {
        return { deny: `The ${name} call needs approval and the host program takes no permission requests (--permission-prompt-tool stdio).` }
      }
      try {
        const answer = await channel.request({
          subtype: "can_use_tool",
          tool_name: name,
          input: toClaudeInput(request.tool.name, params),
          permission_suggestions: suggestions(request, name),
          tool_use_id: request.callId ?? "",
        })
        if (answer.behavior === "allow") {
          applyUpdates(answer.updatedPermissions)
          const updated = isRecord(answer.updatedInput) && Object.keys(answer.updatedInput).length > 0 ? answer.updatedInput : undefined
          if (!updated) return "once"
          return { params: callParams(name, request.tool.name, updated) }
        }
        const message = typeof answer.message === "string" && answer.message !== "" ? answer.message : `The host denied the ${name} call.`
        if (answer.interrupt === true && cancel) Effect.runSync(Deferred.succeed(cancel, undefined))
        return { deny: message }
      } catch (e) {
        return { deny: `The host did not answer the permission request for ${name}: ${(e as { message?: string }).message ?? String(e)}` }
      }
    })

  const hookBase = () => ({
    session_id: session?.id ?? "",
    transcript_path: session?.file ?? "",
    cwd: io.cwd,
    permission_mode: mode,
  })

  // What a program delivers in `initialize` instead of on the command line (the SDK's *Delivery: "initialize").
  const initMcpConfigs = (): Array<string> => (isRecord(initialize.mcpServers) ? [JSON.stringify({ mcpServers: initialize.mcpServers })] : [])
  const disallowed = (): Array<AllowRule> => [
    ...flags.disallowed,
    ...(Array.isArray(initialize.disallowedTools) ? initialize.disallowedTools.flatMap((t) => (typeof t === "string" ? splitToolList(t) : [])).flatMap((t) => claudeRule(t) ?? []) : []),
  ]

  /** Claude's server list: the host's in-process servers (reached through the control channel), then configured ones. */
  const mcpServers = (opened: AgentSessionShape | undefined) => [
    ...sdkServerNames(initialize).map((name) => ({ name, status: "connected" })),
    ...(opened?.mcp.views() ?? []).map((v) => ({
      name: v.name,
      status: v.status === "connected" ? "connected" : v.status === "failed" ? "failed" : v.status === "disabled" ? "disabled" : "pending",
      ...(v.serverInfo ? { serverInfo: v.serverInfo } : {}),
      ...(v.error ? { error: v.error } : {}),
    })),
  ]

  /**
   * set_permission_mode "plan" in a session opened in another mode: every call outside the plan profile's tools is
   * refused before anything else, also one a rule or the sandbox would have let through without asking.
   */
  const planGuard = {
    plugin: "plan permission mode",
    name: "tool.before",
    fn: (event: { readonly tool: string }) => {
      if (mode !== "plan") return undefined
      const tool = session?.tools.find((t) => t.name === event.tool)
      return tool && PROFILES.plan.select([tool]).length === 0 ? { deny: planRefusal(claudeName(tool.name)) } : undefined
    },
  } as HookEntry

  /** The session's messages out, named with its model now (made again when set_model switches it). */
  const streamFor = (opened: AgentSessionShape): ClaudeStream =>
    makeClaudeStream({
      sessionId: opened.id,
      model: opened.model.id,
      contextWindow: opened.model.contextWindow,
      write: (message) => line(forHost(message)),
    })

  const open = async (): Promise<AgentSessionShape> => {
    hooks = makeSdkHooks(hookConfig, channel, hookBase, onProblem, stopTurn)
    const hostTools: Array<Tool> = [...(await sdkMcpTools(initialize, channel, onProblem))]
    const customAgents = sdkAgents([...flags.agents, initialize.agents], onProblem)
    const schema = flags.jsonSchema ?? (isRecord(initialize.jsonSchema) ? initialize.jsonSchema : undefined)
    let sessionPrompt = systemPrompt
    if (schema !== undefined) {
      const { makeStructuredOutput, STRUCTURED_OUTPUT_INSTRUCTION } = await import("./structured-output.ts")
      const made = makeStructuredOutput(schema)
      if (typeof made === "string") throw new AgentSetupError(made)
      structured = made
      hostTools.push(made.tool)
      sessionPrompt = { ...systemPrompt, append: [systemPrompt.append, STRUCTURED_OUTPUT_INSTRUCTION].filter((t) => t !== undefined).join("\n\n") }
    }
    const runtime = ManagedRuntime.make(
      AgentSession.layer({
        cwd: io.cwd,
        env: io.env,
        root,
        modelFlag: model,
        // Claude Code reads CLAUDE.md with the project's settings: a program that leaves "project" out does not want it.
        claudeInstructions: flags.settingSources === undefined || flags.settingSources.includes("project"),
        customAgents,
        // The mode decides: a session planned in mode plan and resumed in another mode gets every tool back.
        profile: mode === "plan" ? "plan" : "code",
        continueLast: flags.continueLast && flags.resume === undefined,
        sessionId: flags.resume,
        fork: flags.forkSession,
        maxSteps: flags.maxTurns,
        // The program's `tools` option chooses among the built-ins; its own MCP tools always come.
        allTools: [...(flags.tools ? tools.filter((t) => flags.tools!.includes(t.name)) : tools), ...hostTools],
        // What the host names explicitly is offered in every request, never only on demand.
        alwaysOffer: [...flags.allowed.map((r) => r.tool), ...hostTools.map((t) => t.name)],
        allow: flags.allowed,
        onAsk: ask,
        configOverrides: {
          ...(disallowed().length > 0 ? { permission: denyRules(disallowed()) } : {}),
          // A host that answers permission requests decides about every asking call, sandboxed commands included.
          ...(flags.promptToolStdio ? { sandbox: { auto_allow: false } } : {}),
        },
        plugins: { onProblem },
        mcp: { extraSources: mcpConfigSources([...flags.mcpConfigs, ...initMcpConfigs()], io.cwd, onProblem) },
        hooks: [planGuard, ...hooks.entries],
        systemPrompt: sessionPrompt,
        onSubagentEvent: (parent, event) => stream?.event(event, parent),
      }),
    )
    const opened = await runtime.runPromise(AgentSession).catch(async (e: unknown) => {
      await runtime.dispose()
      throw e
    })
    sessionRuntime = runtime
    stream = streamFor(opened)
    stream.init({
      cwd: io.cwd,
      model: opened.model.id,
      tools: opened.tools.map((t) => t.name),
      mcp_servers: mcpServers(opened),
      permissionMode: mode,
      version: VERSION,
      profile: opened.profile.name,
      engine: opened.engine,
      resumed: opened.resumed,
      ...(customAgents.length > 0 ? { agents: ["explore", ...customAgents.map((a) => a.name)] } : {}),
      slash_commands: opened.commands.map((c) => c.name),
      // Claude Code lists each plugin's name and path; anvil adds where it came from and whether it loaded.
      plugins: opened.plugins.reports.map((r) => ({ name: r.name, path: r.path, source: r.source, status: r.status })),
    })
    if (flags.ignored.length > 0) stream.system("ignored_flags", { flags: flags.ignored, message: `accepted but not acted on: ${flags.ignored.join(", ")}` })
    // The project file's settings left out for want of trust, as `anvil run --output-format stream-json` reports them.
    if (opened.sandbox.settings.projectIgnored) stream.system("warning", { source: "sandbox", message: opened.sandbox.settings.projectIgnored })
    if (opened.settingsIgnored) stream.system("warning", { source: "config", message: opened.settingsIgnored })
    if (opened.verifySkipped) stream.system("warning", { source: "config", message: opened.verifySkipped })
    if (hooks.uncalled.length > 0) onProblem(`the host's hooks for ${hooks.uncalled.join(", ")} are never called: anvil has no such events (it calls PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart and SessionEnd)`)
    if (hooks.has("SessionStart")) {
      const verdict = await hooks.call("SessionStart", { source: opened.resumed ? "resume" : "startup" })
      for (const text of verdict.additionalContext) opened.addContext(text)
    }
    return opened
  }

  // --include-partial-messages: the model's text as it streams, in the Anthropic stream-event shapes the SDK passes on.
  let partialOpen = false
  const streamEvent = (event: Json) => {
    if (!flags.includePartialMessages || !session) return
    line({ type: "stream_event", event, parent_tool_use_id: null, session_id: session.id, uuid: randomUUID() })
  }
  const partial = (text: string) => {
    if (!partialOpen) {
      partialOpen = true
      streamEvent({ type: "message_start", message: { role: "assistant", content: [] } })
      streamEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })
    }
    streamEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })
  }
  const partialEnd = () => {
    if (!partialOpen) return
    partialOpen = false
    streamEvent({ type: "content_block_stop", index: 0 })
    streamEvent({ type: "message_stop" })
  }

  /** `continue: false` from a host hook during the running turn, with its reason. */
  let hookStop: string | undefined
  /** The running turn was ended because the model gave its structured answer. */
  let structuredStop = false
  const stopTurn = (why: string) => {
    hookStop ??= why
    if (cancel) Effect.runSync(Deferred.succeed(cancel, undefined))
  }

  /** One run of the model loop on `prompt`, cancellable by an interrupt, a signal or a host hook's `continue: false`. */
  const runOne = async (prompt: string): Promise<TurnResult> => {
    cancel = Effect.runSync(Deferred.make<void>())
    try {
      return await session!.runTurn(prompt, {
        cancelled: Deferred.await(cancel),
        emit: (event) => {
          if (event.type === "error") io.err(`anvil: ${event.message}\n`)
          else if (event.type === "text_delta") partial(event.text)
          else {
            if (event.type === "assistant") partialEnd()
            stream!.event(event)
            // A valid structured answer ends the turn, as in Claude Code: the model is not asked again.
            if (event.type === "tool_result" && event.name === structured?.tool.name && structured.value() !== undefined && cancel) {
              structuredStop = true
              Effect.runSync(Deferred.succeed(cancel, undefined))
            }
          }
        },
      })
    } finally {
      cancel = undefined
    }
  }

  /** One run, sent back with a reminder while structured output is asked for and the model has not given it. */
  const runAnswered = async (prompt: string): Promise<TurnResult> => {
    structured?.reset()
    let result = await runOne(prompt)
    if (!structured) return result
    for (let retry = 0; structured.value() === undefined && retry < structured.retries; retry++) {
      if (result.reason === "cancelled" || result.reason === "model_error" || result.reason === "max_steps" || signals.signal !== undefined) break
      result = await runOne(structured.reminder)
    }
    return result
  }

  const turn = async (text: string): Promise<void> => {
    if (signals.signal !== undefined) return
    try {
      session ??= await open()
    } catch (e) {
      const message = e instanceof AgentSetupError ? e.message : (e as Error).message ?? String(e)
      line(startFailureResult(message, EXIT.config))
      io.err(`anvil: ${message}\n`)
      code = EXIT.config
      return
    }
    let prompt = text
    hookStop = undefined
    if (hooks?.has("UserPromptSubmit")) {
      const verdict = await hooks.call("UserPromptSubmit", { prompt: text })
      if (verdict.decision === "deny" || verdict.stop !== undefined) {
        const blocked = turnWithoutSteps("error", "permission_denied", verdict.reason ?? verdict.stop ?? "The host's UserPromptSubmit hook blocked the prompt.")
        stream!.result(blocked)
        return
      }
      if (verdict.additionalContext.length > 0) prompt = `${text}\n\n${verdict.additionalContext.join("\n\n")}`
    }
    structuredStop = false
    let result = await runAnswered(prompt)
    // A Stop hook that says `decision: "block"` keeps the turn going with its reason as the next instruction
    // (Claude Code's behaviour); `stop_hook_active` tells the hook it already did, and a bound keeps a hook that
    // always blocks from looping for ever.
    for (let again = 0; hooks?.has("Stop"); again++) {
      const verdict = await hooks.call("Stop", { stop_hook_active: again > 0, last_assistant_message: result.answer })
      if (verdict.decision !== "deny" || hookStop !== undefined || result.reason === "cancelled" || signals.signal !== undefined) break
      if (again >= STOP_HOOK_CONTINUATIONS) {
        onProblem(`the host's Stop hook blocked the end of the turn ${again} times; the turn ends here`)
        break
      }
      result = await runAnswered(verdict.reason ?? "The host's Stop hook asked you to go on.")
    }
    const stopped = hookStop
    hookStop = undefined
    const answer = structured?.value()
    if (structured && answer !== undefined && (result.reason === "completed" || (structuredStop && result.reason === "cancelled"))) {
      stream!.result({ ...result, status: "success", reason: "completed" }, undefined, { structured_output: answer.data, ...(structuredStop ? { stop_reason: "tool_use" } : {}) })
    } else if (structured && answer === undefined && ["completed", "empty_answer", "repeated_failure"].includes(result.reason) && signals.signal === undefined) {
      stream!.result({ ...result, status: "error", reason: "empty_answer", error: structured.failure }, undefined, { subtype: "error_max_structured_output_retries", is_error: true })
    } else if (stopped !== undefined && result.reason === "cancelled") {
      // `continue: false` from a host hook is the program's own decision to end the turn, not a failure.
      stream!.system("hook_stopped", { message: stopped })
      stream!.result({ ...result, status: "success", reason: "completed" }, undefined, { terminal_reason: "hook_stopped", stop_reason: null })
    } else stream!.result(result, signals.signal)
    // Each result says how its turn went; the process itself fails only when a session could not start or a signal ended it
    // (the SDK treats a non-zero exit as the whole query failing).
    if (signals.signal !== undefined) code = exitCodeOf(result, signals.signal)
  }

  const handleControl = async (message: Json): Promise<void> => {
    const id = typeof message.request_id === "string" ? message.request_id : ""
    const request = isRecord(message.request) ? message.request : {}
    switch (request.subtype) {
      case "initialize":
        hookConfig = request.hooks
        initialize = request
        if (Array.isArray(request.systemPrompt)) {
          const text = request.systemPrompt.filter((s) => typeof s === "string" && s !== "").join("\n\n")
          if (text !== "") systemPrompt = { ...systemPrompt, replace: text }
        } else if (typeof request.systemPrompt === "string" && request.systemPrompt !== "") systemPrompt = { ...systemPrompt, replace: request.systemPrompt }
        if (typeof request.appendSystemPrompt === "string" && request.appendSystemPrompt !== "") systemPrompt = { ...systemPrompt, append: request.appendSystemPrompt }
        channel.succeed(id, {
          commands: await sdkCommands(projectRootOfSync(io.cwd, root), io.env),
          agents: [],
          output_style: "default",
          available_output_styles: ["default"],
          models: [],
          account: {},
          pid: process.pid,
          pending_permission_requests: channel.pending(),
          // The hooks are registered, and a matcher's onFailure is honoured (the SDK refuses "block" without this).
          ...(isRecord(request.hooks) && Object.keys(request.hooks).length > 0 ? { hooks_applied: true } : {}),
          hook_on_failure_supported: true,
          ...(request.mcpServers !== undefined ? { mcp_servers_applied: isRecord(request.mcpServers) } : {}),
          ...(request.disallowedTools !== undefined ? { disallowed_tools_applied: Array.isArray(request.disallowedTools) } : {}),
        })
        return
      case "interrupt":
        if (cancel) Effect.runSync(Deferred.succeed(cancel, undefined))
        channel.succeed(id)
        return
      case "set_permission_mode":
        if (PERMISSION_MODES.includes(request.mode as PermissionMode)) {
          mode = request.mode as PermissionMode
          channel.succeed(id, { mode })
        } else channel.fail(id, `unknown permission mode '${String(request.mode)}' (${PERMISSION_MODES.join(", ")})`)
        return
      case "set_model": {
        // No model: back to the configured one. A running session switches for its next requests.
        const wanted = typeof request.model === "string" && request.model !== "" ? hostModel(request.model) : undefined
        if (!session) {
          model = wanted
          channel.succeed(id, { model: model ?? null })
          return
        }
        try {
          const switched = await session.setModel(wanted ?? "")
          model = wanted
          stream = streamFor(session)
          channel.succeed(id, { model: switched.id })
        } catch (e) {
          channel.fail(id, (e as Error).message)
        }
        return
      }
      case "mcp_status":
        channel.succeed(id, { mcpServers: mcpServers(session) })
        return
      default:
        channel.fail(id, `anvil does not support the control request '${String(request.subtype)}'`)
    }
  }

  // A signal, or standard output's reader going away (the program ended: SIGPIPE), ends the session: the running
  // turn is cancelled with its processes, queued ones do not start, and no further input is read.
  const stopInput = new AbortController()
  const signals = watchSignals((signal) => {
    io.err(cancellingLine(signal))
    if (cancel) Effect.runSync(Deferred.succeed(cancel, undefined))
    stopInput.abort()
  })
  const stopWatchingOutput = io.onOutputGone?.(outputReaderGone)

  // Turns run one after another while control messages keep being read (an interrupt arrives during a turn).
  let queue: Promise<void> = Promise.resolve()
  try {
    const source = io.stdinStream?.() ?? new Response(await io.readStdin()).body!
    for await (const input of inputMessages(source, stopInput.signal)) {
      if (signals.signal !== undefined) break
      if (input.kind === "user") queue = queue.then(() => turn(input.text))
      else if (input.kind === "invalid") io.err(`anvil: input line ${input.line}: ${input.error}; skipped\n`)
      else if (input.type === "control_request") void handleControl(input.message)
      else if (input.type === "control_response") channel.receive(input.message)
      else if (input.type === "control_cancel_request" && typeof input.message.request_id === "string") channel.cancel(input.message.request_id)
      else io.err(`anvil: input messages of type '${input.type}' are not understood; skipped\n`)
    }
    await queue
  } finally {
    channel.close("the host closed its input")
    if (session) {
      if (hooks?.has("SessionEnd")) await hooks.call("SessionEnd", { reason: "other" }).catch(() => undefined)
    }
    await sessionRuntime?.dispose()
    stopWatchingOutput?.()
    signals.dispose()
  }
  return signals.exitCode ?? code
}
