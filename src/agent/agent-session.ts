import { Context, Data, Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import type { AgentSessionOptions, AgentSessionShape } from "./agent-session-types.ts"
import { ConfigStrictError } from "../config/config.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { AGENT_DEFAULTS } from "../config/sections/agent.ts"
import { DEFAULT_COMPACTION } from "./compaction.ts"
import { ModelError, type Usage } from "../llm/model.ts"
import { combineUsage, noUsage } from "../llm/usage.ts"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import { ConfigError } from "../config/config.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { confinementOf, Sandbox } from "../sandbox/sandbox.ts"
import type { SandboxShape } from "../sandbox/sandbox-contract.ts"
import { PlatformLive } from "../runtime.ts"
import { ToolRunner, type ToolRunnerShape } from "../tool-framework/runner.ts"
import { BackgroundShells } from "../shell/background-shells.ts"
import type { BackgroundShellsShape } from "../shell/background-types.ts"
import { expandSlashCommand, localCommands } from "../plugins/claude-commands.ts"
import { promptAddition } from "../plugins/prompt-addition.ts"
import { firstOfEachName, localAgents } from "../plugins/claude-agents.ts"
import { BUILT_IN_PATH } from "../skills/builtin-skills.ts"
import { invokedSkill, skillPrompt } from "../skills/skill-arguments.ts"
import { skillHooks, skillsWithHooks } from "../plugins/skill-hooks.ts"
import { backgroundNotes } from "./background-notes.ts"
import { agentToolRuntime, bootAgent, customAgentsSection, switchModel, verifyRunner, type AgentBoot } from "./agent-runtime.ts"
import type { AgentEvent } from "./events.ts"
import type { HistoryItem } from "./history.ts"
import { runTurn } from "./loop.ts"
import { makeCostMeter } from "./cost-meter.ts"
import { withFallback, type FallbackTarget } from "../llm/fallback.ts"
import { offersBash, type Conversation, type LoopOptions, type VerifyOutcome } from "./loop-options.ts"
import { measureContext } from "./context-usage.ts"
import { projectVerifyGate } from "../trust/project-verify.ts"
import { offerFromConfig } from "./tool-offer.ts"
import { profileOf, profileNames, type EngineName } from "./profiles.ts"
import { projectRootOf } from "../workspace/project-root.ts"
import { createSession, DEFAULT_RETENTION_DAYS, loadSession, pruneSessions, removeSessionFile, resumeSession, SessionError, type SessionWriter, forkSession } from "./session-store.ts"
import { systemPrompt } from "./system-prompt.ts"
import { MCP_DEFAULTS } from "../config/sections/mcp.ts"
import { makeMcpHub } from "../mcp/mcp-hub.ts"
import { pluginServerSources } from "../mcp/server-sources.ts"
import { sourceWithHooks } from "../plugins/hooked-source.ts"
import { emptyPluginSet, loadPlugins, toolNames, toolsWithPlugins, withExtraHooks, withScopedHooks, type PluginSet } from "../plugins/plugin-host.ts"

/**
 * An "ask" goes to the plugins' `permission.ask` hooks first, in order: the
 * first "allow" or "deny" answers it; otherwise the front end asks as before.
 */
const askPluginsFirst =
  (plugins: PluginSet, ask: AgentSessionOptions["onAsk"]) =>
  (request: PermissionRequest): Effect.Effect<boolean | AskAnswer> => {
    if (!plugins.hooks.has("permission.ask")) return ask(request)
    return Effect.flatMap(
      Effect.promise(() =>
        plugins.hooks.call("permission.ask", {
          tool: request.tool.name,
          params: typeof request.params === "object" && request.params !== null ? (request.params as Record<string, unknown>) : {},
        }),
      ),
      (answers) => {
        const decided = answers.find((a) => a.value === "allow" || a.value === "deny")
        if (decided?.value === "allow") return Effect.succeed<AskAnswer>("once")
        if (decided?.value === "deny") return Effect.succeed<AskAnswer>({ deny: `Denied by plugin '${decided.plugin}'.` })
        return ask(request)
      },
    )
  }

/** A problem with how the agent was asked to start (no model, unknown profile, no such session): exit code 2. */
export class AgentSetupError extends Data.TaggedError("AgentSetupError")<{
  readonly message: string
  /** anvil.json's warnings under `--strict` (a usage error, exit code 2, rather than a configuration error). */
  readonly strictConfig: boolean
}> {
  constructor(message: string, strictConfig = false) {
    super({ message, strictConfig })
  }
}

export type { AgentSessionOptions, AgentSessionShape } from "./agent-session-types.ts"

/**
 * The agent session as a service: `AgentSession.layer(options)` opens (or
 * resumes) it, and closing the layer's scope ends it (the plugins' session.end
 * hooks, MCP servers stopped, the tool runtime disposed, a session that never
 * ran a turn removed). Run, chat and the Agent SDK host build it with a
 * `ManagedRuntime`; a problem with how it was asked to start is an
 * `AgentSetupError`.
 */
export class AgentSession extends Context.Service<AgentSession, AgentSessionShape>()("anvil/AgentSession") {
  static readonly layer = (options: AgentSessionOptions): Layer.Layer<AgentSession, AgentSetupError> =>
    Layer.effect(
      AgentSession,
      Effect.acquireRelease(
        Effect.tryPromise({ try: () => openSession(options), catch: (e) => e }).pipe(
          Effect.catch((e) => (e instanceof AgentSetupError ? Effect.fail(e) : Effect.die(e))),
        ),
        (opened) => Effect.promise(opened.close),
      ).pipe(Effect.map((opened) => opened.session)),
    )
}

const DAY_MS = 24 * 60 * 60 * 1000

/** Reads the session to continue (--session ID, or the last one with an answer); a problem is a setup error. */
const loadForResume = async (options: AgentSessionOptions) => {
  const exit = await Effect.runPromiseExit(
    Effect.gen(function* () {
      const root = yield* projectRootOf(options.cwd, options.root ?? options.env.ANVIL_ROOT)
      const found = yield* loadSession(root, options.sessionId)
      return options.fork ? yield* forkSession(found.loaded, found.file, Date.now()) : found
    }).pipe(Effect.provide(PlatformLive)),
  )
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { error?: unknown } | undefined
  if (failure?.error instanceof SessionError) throw new AgentSetupError(failure.error.message)
  throw new Error(String(failure?.error ?? exit.cause))
}

/** A SessionStart hook's context as the model reads it, marked as the system's, not the user's words. */
const startContext = (text: string): string => `<system-reminder>\nSessionStart hook additional context: ${text}\n</system-reminder>`

/** Opens (or resumes) an agent session: boot (root, config, model), session file, tool runtime; `close` ends it. */
const openSession = async (options: AgentSessionOptions): Promise<{ readonly session: AgentSessionShape; readonly close: () => Promise<void> }> => {
  // A continued session is read first: its model, profile and engine are the defaults the options override.
  const continued = options.continueLast || options.sessionId !== undefined ? await loadForResume(options) : undefined
  const header = continued?.loaded.header
  const profileName = options.profile ?? header?.profile ?? "code"
  const profile = profileOf(profileName)
  if (!profile) throw new AgentSetupError(`unknown profile '${profileName}' (choose one of ${profileNames.join(", ")})`)

  const bootWith = async (modelFlag: string | undefined) => {
    const exit = await Effect.runPromiseExit(
      bootAgent({
        cwd: options.cwd,
        env: options.env,
        root: options.root,
        modelFlag,
        model: options.model,
        ...(options.http ? { http: options.http } : {}),
        ...(options.configOverrides ? { configOverrides: options.configOverrides } : {}),
        onConfigWarnings: options.onConfigWarnings,
        strict: options.strict,
        claudeInstructions: options.claudeInstructions,
      }),
    )
    if (Exit.isSuccess(exit)) return exit.value
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { error?: unknown } | undefined
    const error = failure?.error
    if (error instanceof ConfigStrictError) throw new AgentSetupError(error.message, true)
    if (error instanceof ModelError) throw new AgentSetupError(error.message)
    if (error instanceof Error) throw error
    throw new Error(String(error ?? exit.cause))
  }
  let booted: AgentBoot
  if (options.modelFlag === undefined && continued !== undefined) {
    // The model the session last used (the one it began with, or the last setModel's), unless it can no longer be
    // set up here (then the configured one, said once). A model named for this run wins, as in Claude Code.
    const last = continued.loaded.model
    booted = await bootWith(last).catch(async (e) => {
      if (!(e instanceof AgentSetupError)) throw e
      process.stderr.write(`anvil: the session's model ${last} is not available (${e.message}); using the configured model.\n`)
      return bootWith(undefined)
    })
  } else booted = await bootWith(options.modelFlag)
  // The model may change while the session runs (setModel): the loop and the subagents read it through `boot.model`.
  let currentModel = booted.model
  let thinking = options.thinking
  const boot: AgentBoot = {
    ...booted,
    get model() {
      return currentModel
    },
  }

  const engineName = options.engine ?? header?.engine ?? boot.config.get("engine", "") ?? ""
  const engine: EngineName = engineName === "react" || engineName === "native" ? engineName : (profile.engine ?? "native")
  if (options.engine !== undefined && options.engine !== "react" && options.engine !== "native") {
    throw new AgentSetupError(`unknown engine '${options.engine}' (native or react)`)
  }

  const scope = await Effect.runPromise(Scope.make())
  const closeScope = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const inScope = <A, E>(effect: Effect.Effect<A, E, any>) =>
    Effect.runPromise(effect.pipe(Scope.provide(scope), Effect.provide(PlatformLive)) as Effect.Effect<A, E, never>)

  let writer: SessionWriter
  let items: Array<HistoryItem> = []
  let resumed = false
  let todos: ReadonlyArray<unknown> | undefined
  try {
    if (continued) {
      const { loaded, file } = continued
      writer = await inScope(resumeSession(file, loaded))
      items = [...loaded.items]
      todos = loaded.todos
      resumed = true
    } else {
      const retentionDays = boot.config.get("sessions.retention_days", DEFAULT_RETENTION_DAYS)
      await inScope(
        pruneSessions(boot.root, { ...(retentionDays > 0 ? { olderThanMs: retentionDays * DAY_MS } : {}), empty: true, now: Date.now() }).pipe(Effect.ignore),
      )
      writer = await inScope(createSession(boot.root, { cwd: boot.facts.cwd, model: boot.model.id, profile: profile.name, engine }))
    }
  } catch (e) {
    await closeScope()
    const inner = (e as { cause?: unknown })?.cause ?? e
    if (e instanceof SessionError || inner instanceof SessionError) throw new AgentSetupError((inner as SessionError).message ?? String(e))
    throw e
  }

  const onProblem = options.plugins?.onProblem ?? (() => {})
  // Repository command hooks run in the session's sandbox, which exists once the tool runtime is built below.
  let sandboxReady: (s: SandboxShape) => void = () => undefined
  const sessionSandbox = new Promise<SandboxShape>((resolve) => (sandboxReady = resolve))
  const loaded = options.plugins
    ? await loadPlugins({
        root: boot.root,
        env: options.env,
        config: boot.config,
        builtinNames: toolNames(options.allTools),
        confineProjectHooks: confinementOf(sessionSandbox),
        ...(options.plugins.trustProject ? { trustProject: true } : {}),
        ...(options.plugins.freezeReport ? { freezeReport: options.plugins.freezeReport(writer.id) } : {}),
        onProblem,
      })
    : emptyPluginSet()
  const hosted = options.hooks && options.hooks.length > 0 ? withExtraHooks(loaded, options.hooks, onProblem) : loaded
  // A skill's front-matter hooks join the session once it is invoked (skill-hooks.ts), as the plugins' hooks run.
  const skillHookSet =
    options.plugins && skillsWithHooks(boot.skills)
      ? skillHooks({ skills: boot.skills, root: boot.root, env: options.env, session: { id: writer.id, transcript: writer.file }, onProblem, confine: confinementOf(sessionSandbox), trustProject: options.plugins.trustProject === true })
      : undefined
  const plugins = skillHookSet ? withScopedHooks(hosted, [skillHookSet.observer], skillHookSet.scoped, onProblem) : hosted
  const local = localAgents(boot.root, options.env, options.claudeInstructions !== false)
  for (const p of [...local.project.problems, ...local.user.problems]) onProblem(`.claude/agents: ${p}`)
  for (const p of boot.skillProblems) onProblem(p)
  // MCP servers start now, while the rest of the session is set up; the first model request waits for them
  // (mcp.startup_timeout_ms at most), so a model asked to use a server's tool sees it on its first step.
  const mcp = makeMcpHub({
    root: boot.root,
    env: options.env,
    extraSources: [...(options.mcp?.strict ? [] : pluginServerSources(plugins.mcpServers)), ...(options.mcp?.extraSources ?? [])],
    ...(options.mcp?.strict ? { onlyExtra: true } : {}),
    ...(options.mcp?.onEvent ? { onEvent: options.mcp.onEvent } : {}),
    ...(options.mcp?.trustProject ? { trustAll: true } : {}),
  })
  const mcpReady = mcp.configured ? mcp.startWithin(boot.config.get("mcp.startup_timeout_ms", MCP_DEFAULTS.startup_timeout_ms)) : undefined
  // What the current turn's subagents spent; reset at each turn.
  let subagentUsage = noUsage()
  const cost = makeCostMeter({ budgetUsd: options.maxBudgetUsd, ...(options.onNotice ? { onUnknownPrice: options.onNotice } : {}) })
  const fallbacks: ReadonlyArray<FallbackTarget> = (options.fallbackModels ?? []).map((id) => ({ id, make: switchModel(boot, id) }))
  const runtimeOptions = {
    // Their spend goes to the meter request by request, in their own loop (cost below); this is the turn's usage only.
    onSubagentUsage: (u: Usage) => {
      subagentUsage = combineUsage(subagentUsage, u)
    },
    cost,
    fallbacks,
    cwd: options.cwd,
    toolSources: mcp.configured ? [sourceWithHooks(mcp.toolSource, plugins.hooks, onProblem)] : [],
    env: options.env,
    boot,
    allTools: toolsWithPlugins(options.allTools, plugins, onProblem),
    profile,
    engine,
    sessionId: writer.id,
    onAsk: askPluginsFirst(plugins, options.onAsk),
    ...(options.allow ? { allow: options.allow } : {}),
    ...(options.subagentPromptAppend ? { subagentPromptAppend: options.subagentPromptAppend } : {}),
    sandbox: { modeFlag: options.sandboxMode, ...(options.askHost ? { askHost: options.askHost } : {}), ...(options.addDirs ? { addDirs: options.addDirs } : {}) },
    ...(options.terminal ? { terminal: options.terminal } : {}),
    // Claude Code's order: the project's .claude/agents, the caller's own, the user's, the plugins'; the first of a name wins.
    customAgents: firstOfEachName(local.project.agents, options.customAgents ?? [], local.user.agents, plugins.agents),
    // Their front-matter hooks run with the plugins' (not when plugins are off).
    ...(options.plugins ? { agentHooks: { onProblem, trustProject: options.plugins.trustProject === true } } : {}),
    ...(options.onSubagentEvent
      ? { onSubagentEvent: (id: string, e: AgentEvent) => Effect.sync(() => options.onSubagentEvent!(id, e)) }
      : {}),
  }
  const runtime = ManagedRuntime.make(agentToolRuntime(runtimeOptions))
  let runner: ToolRunnerShape
  let sandbox: SandboxShape
  let background: BackgroundShellsShape
  try {
    ;[runner, sandbox, background] = await runtime.runPromise(Effect.all([ToolRunner, Sandbox, BackgroundShells]))
    sandboxReady(sandbox)
    if (sandbox.status.settings.require && !sandbox.status.confining) {
      throw new AgentSetupError(`${sandbox.status.warning ?? "the command sandbox is not available"} (sandbox.require is on)`)
    }
  } catch (e) {
    await runtime.dispose()
    await closeScope()
    await mcp.dispose()
    const inner = (e as { cause?: unknown })?.cause ?? e
    if (inner instanceof ConfigError) throw new AgentSetupError(inner.message)
    throw e
  }

  const config = boot.config
  const maxSteps = options.maxSteps ?? config.get("max_steps", AGENT_DEFAULTS.max_steps)
  let verifyCommand = options.verify === false ? "" : (options.verify ?? config.get("verify", ""))
  // The project's own verify needs trust (or a person's yes) where it would run unconfined.
  const verifyGate = verifyCommand !== "" && options.verify === undefined ? await Effect.runPromise(projectVerifyGate(config, boot.root, sandbox.status)) : undefined
  if (verifyGate && !options.askVerify) verifyCommand = ""
  // The person's answer for this session: undefined until asked.
  let verifyApproved: boolean | undefined
  const approveVerify = Effect.gen(function* () {
    if (!verifyGate || !options.askVerify) return true
    if (verifyApproved === undefined) {
      const answer = yield* Effect.promise(() => options.askVerify!(verifyGate.command, verifyGate.why))
      if (answer === "always") yield* verifyGate.trustIt
      verifyApproved = answer !== "deny"
    }
    return verifyApproved
  })
  const verifyTimeout = config.get("verify_timeout_ms", AGENT_DEFAULTS.verify_timeout_ms)
  const compaction = {
    threshold: config.get("compaction.threshold", DEFAULT_COMPACTION.threshold),
    keepFraction: config.get("compaction.keep_fraction", DEFAULT_COMPACTION.keepFraction),
  }
  const conversation: Conversation = { items }
  // The project's commands first, then the user's, then the plugins': the first of a name wins.
  const commands = [...localCommands(boot.root, options.env), ...plugins.commands]
  const offer = offerFromConfig(config, options.alwaysOffer)
  const sessionEvent = { sessionId: writer.id, root: boot.root, transcriptPath: writer.file, source: resumed ? ("resume" as const) : ("startup" as const) }
  const additions = await plugins.hooks.call("prompt.system", sessionEvent)
  const added = additions.flatMap((a) => (typeof a.value === "string" && a.value.trim() !== "" ? [promptAddition(a.plugin, a.value.trim(), onProblem)] : [])).join("\n\n")
  const base = options.systemPrompt?.replace ?? systemPrompt(profile, boot.facts, added)
  // What the plugins add (a Claude Code plugin's SessionStart output) is context, not part of a prompt the program
  // replaced: it goes to the model with the first turn, as Claude Code adds a SessionStart hook's context.
  // Background commands whose end the model was told of at the start of a turn.
  const toldEnded = new Set<string>()
  const pendingContext: Array<string> = options.systemPrompt?.replace !== undefined && added !== "" ? [startContext(added)] : []
  // The custom subagents are listed even under a replaced prompt: without their names the model cannot call them.
  const system = [base, customAgentsSection(runtimeOptions.customAgents), options.systemPrompt?.append ?? ""].filter((t) => t !== "").join("\n\n")
  await plugins.hooks.call("session.start", sessionEvent)
  let outcome = "success"
  let turnsRun = 0

  const session: AgentSessionShape = {
    id: writer.id,
    file: writer.file,
    resumed,
    root: boot.root,
    get model() {
      return boot.model
    },
    cost,
    setModel: async (flag) => {
      const exit = await Effect.runPromiseExit(switchModel(boot, flag))
      if (Exit.isSuccess(exit)) {
        currentModel = exit.value
        // Recorded, so that resuming the session continues with the model chosen last.
        await Effect.runPromise(writer.append({ type: "model", model: currentModel.id }))
        return currentModel
      }
      const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { error?: { message?: string } } | undefined
      throw new AgentSetupError(failure?.error?.message ?? `the model '${flag}' cannot be used`)
    },
    setThinking: (wanted) => {
      thinking = wanted
    },
    profile,
    engine,
    // Read when asked: MCP servers' tools join while the session runs.
    get tools() {
      return runner.registry.tools
    },
    sandbox: sandbox.status,
    ...(ignoredSettingsNotice(boot.config.ignored) ? { settingsIgnored: ignoredSettingsNotice(boot.config.ignored)! } : {}),
    ...(verifyGate && !options.askVerify ? { verifySkipped: verifyGate.notice } : {}),
    conversation,
    plugins,
    agents: runtimeOptions.customAgents,
    mcp,
    mcpReady: mcpReady ?? Promise.resolve(),
    ...(todos ? { todos } : {}),
    skills: boot.skills.map((k) => k.name),
    commands,
    background,
    addContext: (text) => {
      if (text.trim() !== "") pendingContext.push(startContext(text.trim()))
    },
    contextUsage: () => {
      const note = mcpReady ? mcp.note() : ""
      return measureContext({
        system: note === "" ? system : `${system}\n\n${note}`,
        facts: boot.facts,
        items: conversation.items,
        registry: runner.registry,
        loaded: conversation.loaded ?? new Set(),
        offer,
        react: engine === "react",
        model: boot.model,
        threshold: compaction.threshold,
      })
    },
    runTurn: (given, turn) => {
      const command = expandSlashCommand(given, commands)
      const invoked = command ? undefined : invokedSkill(given, boot.skills)
      if (invoked) skillHookSet?.invoked(invoked.skill)
      const prompt = command?.prompt ?? (invoked ? skillPrompt(given, boot.skills, writer.id, BUILT_IN_PATH) : undefined) ?? given
      subagentUsage = noUsage()
      turnsRun++
      const loopOptions: LoopOptions = {
        // Made for each turn: a turn starts with the session's model again, whatever an earlier one fell back to.
        model: fallbacks.length > 0 ? withFallback(boot.model, fallbacks) : boot.model,
        cost,
        runner,
        engine,
        system,
        maxSteps,
        compaction,
        ...(verifyCommand
          ? {
              verify: {
                command: verifyCommand,
                run: Effect.flatMap(approveVerify, (approved) =>
                  approved
                    ? verifyRunner(verifyCommand, boot.root, options.env, verifyTimeout).pipe(Effect.provide(ProcessRunner.layer), Effect.provideService(Sandbox, sandbox))
                    : Effect.succeed({ exitCode: 0, output: "", timedOut: false, skipped: true } satisfies VerifyOutcome),
                ),
                maxAttempts: config.get("verify_attempts", AGENT_DEFAULTS.verify_attempts),
              },
            }
          : {}),
        ...(turn.emit ? { emit: (e: AgentEvent) => Effect.sync(() => turn.emit!(e)) } : {}),
        ...(mcpReady ? { systemNote: mcp.note, ready: Effect.promise(() => mcpReady) } : {}),
        record: writer.record,
        subagentUsage: () => subagentUsage,
        offer,
        mayCall: (tools) => {
          if (offersBash(tools)) sandbox.commandComing()
        },
        thinking: () => thinking,
        ...(turn.cancelled ? { cancelled: turn.cancelled } : {}),
        ...(pendingContext.length > 0 || background.list().length > 0 ? { context: [...pendingContext.splice(0), ...backgroundNotes(background.list(), toldEnded)] } : {}),
      }
      return runtime.runPromise(runTurn(conversation, prompt, loopOptions)).then((result) => {
        outcome = result.status === "success" ? "success" : (result.reason ?? result.status)
        return result
      })
    },
  }
  const close = async () => {
    await plugins.hooks.call("session.end", { ...sessionEvent, outcome })
    await mcp.dispose()
    await runtime.dispose()
    await closeScope()
    // A session that never ran a turn is not kept (a chat left at once, a run that could not start), nor one asked not to be.
    if ((!resumed && turnsRun === 0) || options.persist === false) await Effect.runPromise(removeSessionFile(writer.file).pipe(Effect.provide(PlatformLive)))
  }
  return { session, close }
}
