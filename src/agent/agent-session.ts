import { Context, Data, Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import type { ConfigWarning } from "../config/check.ts"
import { ConfigStrictError } from "../config/config.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { AGENT_DEFAULTS } from "../config/sections/agent.ts"
import { DEFAULT_COMPACTION } from "./compaction.ts"
import { ModelError, type LanguageModelShape, type ThinkingRequest } from "../llm/model.ts"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import type { AllowRule } from "../permission/allow-rule.ts"
import { ConfigError } from "../config/config.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { confinementOf, Sandbox, type SandboxShape, type SandboxStatus } from "../sandbox/sandbox.ts"
import { PlatformLive } from "../runtime.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { ToolRunner, type ToolRunnerShape } from "../tool-framework/runner.ts"
import { BackgroundShells } from "../shell/background-shells.ts"
import type { BackgroundShellsShape } from "../shell/background-types.ts"
import type { UserTerminal } from "../terminal/user-terminal.ts"
import { expandSlashCommand, localCommands, type SlashCommand } from "../plugins/claude-commands.ts"
import { BUILT_IN_PATH } from "../skills/builtin-skills.ts"
import { skillPrompt } from "../skills/skill-arguments.ts"
import { backgroundNotes } from "./background-notes.ts"
import { agentToolRuntime, bootAgent, customAgentsSection, switchModel, verifyRunner, type AgentBoot, type CustomAgent } from "./agent-runtime.ts"
import type { AgentEvent, TurnResult } from "./events.ts"
import type { HistoryItem } from "./history.ts"
import { offersBash, runTurn, type Conversation, type LoopOptions, type VerifyOutcome } from "./loop.ts"
import { measureContext, type ContextUsage } from "./context-usage.ts"
import { projectVerifyGate } from "../trust/project-verify.ts"
import { offerFromConfig } from "./tool-offer.ts"
import { profileOf, profileNames, type EngineName, type Profile } from "./profiles.ts"
import { projectRootOf } from "../workspace/project-root.ts"
import { createSession, DEFAULT_RETENTION_DAYS, loadSession, pruneSessions, removeSessionFile, resumeSession, SessionError, type SessionWriter, forkSession } from "./session-store.ts"
import { systemPrompt } from "./system-prompt.ts"
import { MCP_DEFAULTS } from "../config/sections/mcp.ts"
import { makeMcpHub, type McpEvent, type McpHub } from "../mcp/mcp-hub.ts"
import { pluginServerSources, type ServerSource } from "../mcp/server-sources.ts"
import type { HookEntry } from "../plugins/hook-runner.ts"
import { emptyPluginSet, loadPlugins, toolNames, toolsWithPlugins, withExtraHooks, type PluginSet } from "../plugins/plugin-host.ts"
import type { FreezeReport } from "../plugins/watchdog.ts"

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

export interface AgentSessionOptions {
  /** Subagents the caller defines beside explore (the Agent SDK's `agents`). */
  readonly customAgents?: ReadonlyArray<CustomAgent> | undefined
  /** Whether CLAUDE.md files join AGENTS.md as project instructions (default true; the SDK's settingSources without "project" turns them off). */
  readonly claudeInstructions?: boolean | undefined
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly root?: string | undefined
  readonly modelFlag?: string | undefined
  readonly profile?: string | undefined
  readonly engine?: string | undefined
  /** Resume the most recent session. */
  readonly continueLast?: boolean
  /** Resume this session. */
  readonly sessionId?: string | undefined
  readonly maxSteps?: number | undefined
  /** Auto-verification: undefined = anvil.json `verify`; false = off. */
  readonly verify?: string | false | undefined
  readonly allTools: ReadonlyArray<Tool>
  readonly onAsk: (request: PermissionRequest) => Effect.Effect<boolean | AskAnswer>
  readonly allow?: ReadonlyArray<AllowRule>
  readonly terminal?: Layer.Layer<UserTerminal>
  readonly onSubagentEvent?: (parentCallId: string, event: AgentEvent) => void
  /** `--sandbox MODE` (over anvil.json sandbox.mode). */
  readonly sandboxMode?: string | undefined
  /** Asks the person whether a host outside sandbox.network may be reached (chat). */
  readonly askHost?: (host: string) => Promise<"once" | "always" | "deny">
  /**
   * Asks the person whether the project's untrusted `verify` command may run outside the command sandbox
   * (chat, a run at a terminal): "once" for this session, "always" also trusts it. Without it such a
   * command is skipped with a notice (see trust/project-verify.ts).
   */
  readonly askVerify?: (command: string, why: string) => Promise<"once" | "always" | "deny">
  /** Settings that win over anvil.json (--timeout). */
  readonly configOverrides?: Record<string, unknown>
  /** Injected model (tests, bench); otherwise resolved from configuration. */
  readonly model?: LanguageModelShape
  /** Load plugins (tools, hooks, prompt additions) once the project is known. Default: none. */
  readonly plugins?: {
    /** Trust project plugins for this session (`--trust-plugins`). */
    readonly trustProject?: boolean
    /** Where hook failures and plugin problems are told. */
    readonly onProblem?: (message: string) => void
    /** What standard output gets if a plugin freezes anvil (plugins/watchdog.ts); stderr always gets the message. */
    readonly freezeReport?: FreezeReport
  }
  /** Resume into a copy under a new id (the original session stays as it was). */
  readonly fork?: boolean
  /** Hooks of the program driving anvil (the Agent SDK host), run after the plugins' hooks. */
  readonly hooks?: ReadonlyArray<HookEntry>
  /** The system prompt: `replace` instead of anvil's own, and/or `append` after it (the Agent SDK's systemPrompt options). */
  readonly systemPrompt?: { readonly replace?: string; readonly append?: string }
  /** Extended thinking from the first request (see setThinking). */
  readonly thinking?: ThinkingRequest
  /** MCP servers: where their state changes and progress go, and server definitions from plugin folders. */
  readonly mcp?: {
    /** Start the project's untrusted servers for this session (`--trust-mcp`). */
    readonly trustProject?: boolean
    readonly onEvent?: (event: McpEvent) => void
    readonly extraSources?: ReadonlyArray<ServerSource>
  }
  /** Told about anvil.json's warnings (unknown keys, wrong types) before anything else starts. */
  readonly onConfigWarnings?: (warnings: ReadonlyArray<ConfigWarning>) => void
  /** `--strict`: configuration warnings are an AgentSetupError. */
  readonly strict?: boolean
  /** Tools to offer in every request even when they would be on demand (the host named them: allowedTools, its own MCP tools). */
  readonly alwaysOffer?: ReadonlyArray<string>
}

/** An agent conversation bound to a session file (the `AgentSession` service's shape). */
export interface AgentSessionShape {
  readonly id: string
  readonly file: string
  readonly resumed: boolean
  readonly root: string
  readonly model: LanguageModelShape
  readonly profile: Profile
  readonly engine: EngineName
  /** The tools the model is offered now (MCP tools join as their servers connect). */
  readonly tools: ReadonlyArray<Tool>
  /** The command sandbox in force. */
  readonly sandbox: SandboxStatus
  /**
   * Set when settings of the project's anvil.json were left out because the user has not trusted them
   * (model servers, language-server commands, loosening permission rules, …): what, and the next step.
   */
  readonly settingsIgnored?: string
  /** Set when the project's `verify` command is skipped: it would run unconfined and is not trusted. What, and the next step. */
  readonly verifySkipped?: string
  readonly conversation: Conversation
  readonly todos?: ReadonlyArray<unknown>
  /** The names of the skills the skill tool can load. */
  readonly skills: ReadonlyArray<string>
  /** The plugins found (with their status), when plugins were loaded. */
  readonly plugins: PluginSet
  /** The session's MCP servers (none configured: `configured` is false). */
  readonly mcp: McpHub
  /**
   * Resolves once the MCP servers started with the session are connected or failed, or `mcp.startup_timeout_ms`
   * has passed (at once without servers): what the first model request waits for, and a front end's init message.
   */
  readonly mcpReady: Promise<void>
  /** Claude Code's custom slash commands a prompt `/name args` runs (the project's, the user's, the plugins'). */
  readonly commands: ReadonlyArray<SlashCommand>
  /** The commands bash runs in the background (`run_in_background`), for a host that looks at or stops one. */
  readonly background: BackgroundShellsShape
  /**
   * Switches the model for the next requests of this session and its subagents (the Agent SDK's setModel), resolved
   * as `--model` is; rejects with an AgentSetupError naming what is wrong. The switch is recorded in the session file:
   * resumed without a model named, the session continues with the one it used last.
   */
  readonly setModel: (flag: string) => Promise<LanguageModelShape>
  /** Extended thinking for the next requests (the Agent SDK's maxThinkingTokens / thinking); undefined turns it off. */
  readonly setThinking: (thinking: ThinkingRequest | undefined) => void
  /**
   * Context for the model from the session's start (a host's SessionStart hook): sent with the next turn, before
   * its prompt, as a message of its own, so a system prompt the program replaced does not lose it.
   */
  readonly addContext: (text: string) => void
  /** What the next model request would hold, by part (estimated tokens). */
  readonly contextUsage: () => ContextUsage
  /** Runs one turn; never rejects (problems end the turn with a status). */
  readonly runTurn: (
    prompt: string,
    options: { readonly emit?: (event: AgentEvent) => void; readonly cancelled?: Effect.Effect<void> },
  ) => Promise<TurnResult>
}

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
        ...(options.plugins.freezeReport ? { freezeReport: options.plugins.freezeReport } : {}),
        onProblem,
      })
    : emptyPluginSet()
  const plugins = options.hooks && options.hooks.length > 0 ? withExtraHooks(loaded, options.hooks, onProblem) : loaded
  // MCP servers start now, while the rest of the session is set up; the first model request waits for them
  // (mcp.startup_timeout_ms at most), so a model asked to use a server's tool sees it on its first step.
  const mcp = makeMcpHub({
    root: boot.root,
    env: options.env,
    extraSources: [...pluginServerSources(plugins.mcpServers), ...(options.mcp?.extraSources ?? [])],
    ...(options.mcp?.onEvent ? { onEvent: options.mcp.onEvent } : {}),
    ...(options.mcp?.trustProject ? { trustAll: true } : {}),
  })
  const mcpReady = mcp.configured ? mcp.startWithin(boot.config.get("mcp.startup_timeout_ms", MCP_DEFAULTS.startup_timeout_ms)) : undefined
  // What the current turn's subagents spent; reset at each turn.
  let subagentUsage = { inputTokens: 0, outputTokens: 0 }
  const runtimeOptions = {
    onSubagentUsage: (u: { inputTokens: number; outputTokens: number }) => {
      subagentUsage = { inputTokens: subagentUsage.inputTokens + u.inputTokens, outputTokens: subagentUsage.outputTokens + u.outputTokens }
    },
    cwd: options.cwd,
    toolSources: mcp.configured ? [mcp.toolSource] : [],
    env: options.env,
    boot,
    allTools: toolsWithPlugins(options.allTools, plugins, onProblem),
    profile,
    engine,
    sessionId: writer.id,
    onAsk: askPluginsFirst(plugins, options.onAsk),
    ...(options.allow ? { allow: options.allow } : {}),
    sandbox: { modeFlag: options.sandboxMode, ...(options.askHost ? { askHost: options.askHost } : {}) },
    ...(options.terminal ? { terminal: options.terminal } : {}),
    // The caller's own agents first; a plugin's agent of the same name is left out.
    customAgents: [...(options.customAgents ?? []), ...plugins.agents.filter((a) => !options.customAgents?.some((b) => b.name === a.name))],
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
  const sessionEvent = { sessionId: writer.id, root: boot.root }
  const additions = await plugins.hooks.call("prompt.system", sessionEvent)
  const added = additions.flatMap((a) => (typeof a.value === "string" && a.value.trim() !== "" ? [a.value.trim()] : [])).join("\n\n")
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
    mcp,
    mcpReady: mcpReady ?? Promise.resolve(),
    ...(todos ? { todos } : {}),
    skills: (boot.facts.skills ?? []).map((k) => k.name),
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
      const prompt = expandSlashCommand(given, commands)?.prompt ?? skillPrompt(given, boot.skills, writer.id, BUILT_IN_PATH) ?? given
      subagentUsage = { inputTokens: 0, outputTokens: 0 }
      turnsRun++
      const loopOptions: LoopOptions = {
        model: boot.model,
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
    // A session that never ran a turn is not kept (a chat left at once, a run that could not start).
    if (!resumed && turnsRun === 0) await Effect.runPromise(removeSessionFile(writer.file).pipe(Effect.provide(PlatformLive)))
  }
  return { session, close }
}
