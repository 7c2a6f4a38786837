import { Context, Effect, Layer, Option } from "effect"
import { Path } from "effect/Path"
import type { ConfigWarning } from "../config/check.ts"
import { Config, ConfigStrictError, type ConfigShape } from "../config/config.ts"
import { AGENT_DEFAULTS } from "../config/sections/agent.ts"
import { ModelHttp } from "../llm/http.ts"
import type { LanguageModelShape, Usage } from "../llm/model.ts"
import { resolveModel } from "../llm/resolve-model.ts"
import { Permissions, type AskAnswer, type PermissionRequest } from "../permission/permissions.ts"
import type { AllowRule } from "../permission/allow-rule.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { makeToolRuntime, PlatformLive, trustedConfig, type RuntimeOptions, type ToolServices } from "../runtime.ts"
import { shellExit } from "../process/exit-status.ts"
import { BackgroundShells, ownedBy } from "../shell/background-shells.ts"
import { confinementOf, Sandbox } from "../sandbox/sandbox.ts"
import { withAgentHooks } from "../plugins/agent-hooks.ts"
import { agentMayCall, agentSources, agentWithheld } from "./custom-agent-tools.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makeRegistry, type ToolSource } from "../tool-framework/registry.ts"
import { registryWithLoader } from "../tools/load_tools.ts"
import { ToolRunner } from "../tool-framework/runner.ts"
import { SessionInfo } from "../tool-framework/session.ts"
import { SubagentRunner, type SubagentReport } from "../tool-framework/subagent.ts"
import type { UserTerminal } from "../terminal/user-terminal.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { projectRootOf } from "../workspace/project-root.ts"
import type { AgentEvent } from "./events.ts"
import type { CostMeter } from "./cost-meter.ts"
import { withFallback, type FallbackTarget } from "../llm/fallback.ts"
import { runTurn } from "./loop.ts"
import { offersBash, type VerifyOutcome } from "./loop-options.ts"
import { readInstructionFile } from "./instruction-files.ts"
import { offerFromConfig } from "./tool-offer.ts"
import { PROFILES, type EngineName, type Profile } from "./profiles.ts"
import { loadSkillCatalog, type Skill } from "../skills/skill-catalog.ts"
import { modelInvocable } from "../skills/skill-arguments.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { pluginSkillFolders } from "../plugins/plugin-extras.ts"
import type { CustomAgent } from "../tool-framework/subagent.ts"
import { systemPrompt, type PromptFacts } from "./system-prompt.ts"

export type { CustomAgent }

/** What the CLI learns before it builds an agent: where the project is, its configuration, the model. */
export interface AgentBoot {
  readonly root: string
  readonly config: ConfigShape
  readonly model: LanguageModelShape
  readonly facts: PromptFacts
  /** The skills the skill tool can load (a prompt `/name args` runs one). */
  readonly skills: ReadonlyArray<Skill>
  /** What the skills settings got wrong (a skills.paths file, a skills.only name no skill has): said once as the session opens. */
  readonly skillProblems: ReadonlyArray<string>
  /** The HTTP the boot was given, which a model switched to later uses too; none: ModelHttp's. */
  readonly http?: ModelHttp["Service"]
}

/** Finds the root, loads anvil.json and resolves the model (a ModelError of kind "config" names what to set). */
export const bootAgent = (input: {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly root?: string | undefined
  readonly modelFlag?: string | undefined
  readonly http?: ModelHttp["Service"]
  /** A model given directly (tests, bench): no resolution. */
  readonly model?: LanguageModelShape | undefined
  /** Settings that win over the files (command-line options). */
  readonly configOverrides?: Record<string, unknown>
  /** Told about anvil.json's warnings as soon as the files are read, before the model is resolved. */
  readonly onConfigWarnings?: ((warnings: ReadonlyArray<ConfigWarning>) => void) | undefined
  /** `--strict`: configuration warnings stop the start (a ConfigStrictError). */
  readonly strict?: boolean | undefined
  /** Whether Claude Code's CLAUDE.md files join AGENTS.md as project instructions (default true). */
  readonly claudeInstructions?: boolean | undefined
}) =>
  Effect.gen(function* () {
    const path = yield* Path
    const root = yield* projectRootOf(input.cwd, input.root ?? input.env.ANVIL_ROOT)
    // The project file's settings that need the user's trust (model servers, LSP commands, loosening rules) are left out until trusted.
    const config = yield* Config.load({ root, env: input.env, ...(input.configOverrides ? { overrides: input.configOverrides } : {}) }).pipe(
      Effect.flatMap((loaded) => trustedConfig(loaded, root)),
    )
    if (config.warnings.length > 0) {
      input.onConfigWarnings?.(config.warnings)
      if (input.strict) return yield* new ConfigStrictError({ count: config.warnings.length })
    }
    const http = input.http ?? (yield* ModelHttp)
    const model = input.model ?? (yield* resolveModel({ config, root, http, flag: input.modelFlag }))
    // AGENTS.md, and Claude Code's CLAUDE.md files unless the caller turned them off; a file that is the same as
    // one already read (a CLAUDE.md linked to AGENTS.md) counts once.
    const names = ["AGENTS.md", ...(input.claudeInstructions === false ? [] : ["CLAUDE.md", ".claude/CLAUDE.md"])]
    const found: Array<{ name: string; text: string }> = []
    for (const name of names) {
      const text = readInstructionFile(root, name)
      if (text.trim() !== "" && !found.some((f) => f.text === text)) found.push({ name, text })
    }
    const agentsMd = found.length === 1 ? found[0]!.text : found.map((f) => `## ${f.name}\n${f.text.trim()}`).join("\n\n")
    const rel = path.relative(root, path.resolve(input.cwd))
    const catalog = yield* loadSkillCatalog(root, embeddedAssets, pluginSkillFolders({ root, env: input.env, config })).pipe(
      Effect.provideService(Config, config),
    )
    const facts: PromptFacts = {
      root,
      cwd: rel === "" || rel.startsWith("..") ? "." : rel,
      platform: `${process.platform} ${process.arch}`,
      date: new Date().toISOString().slice(0, 10),
      projectInstructions: agentsMd.length > 16_000 ? `${agentsMd.slice(0, 16_000)}\n[… cut]` : agentsMd,
      ...(found.length > 0 ? { projectInstructionFiles: found.map((f) => f.name), projectInstructionChars: found.map((f) => Math.min(f.text.length, 16_000)) } : {}),
      // A skill only a person may run (disable-model-invocation) is not offered to the model.
      skills: catalog.skills.filter(modelInvocable).map((k) => ({ name: k.name, description: k.description })),
    }
    return { root, config, model, facts, skills: catalog.skills, skillProblems: catalog.problems, ...(input.http ? { http: input.http } : {}) } satisfies AgentBoot
  }).pipe(Effect.provide(Layer.merge(PlatformLive, ModelHttp.layer)))

/** Another model for a running session (the Agent SDK's setModel), resolved as `--model` would be; a ModelError names what is wrong. */
export const switchModel = (boot: AgentBoot, flag: string) =>
  Effect.gen(function* () {
    return yield* resolveModel({ config: boot.config, root: boot.root, http: boot.http ?? (yield* ModelHttp), flag })
  }).pipe(Effect.provide(Layer.merge(PlatformLive, ModelHttp.layer)))

/** The system prompt's list of the custom subagents, so the model knows their names; empty without any. */
export const customAgentsSection = (agents: ReadonlyArray<CustomAgent>): string =>
  agents.length === 0
    ? ""
    : `# Subagents\nBesides "explore", the task tool runs these agents (its \`agent\` parameter); give one a task that matches its description.\n${agents.map((a) => `- ${a.name}: ${a.description}`).join("\n")}`

export interface AgentRuntimeOptions {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly boot: AgentBoot
  /** Every tool available (built-ins and plugins); the profile chooses among them. */
  readonly allTools: ReadonlyArray<Tool>
  /** Tools that join during the session (MCP servers); the profile chooses among them too. */
  readonly toolSources?: ReadonlyArray<ToolSource>
  readonly profile: Profile
  readonly engine: EngineName
  readonly sessionId: string
  readonly onAsk: (request: PermissionRequest) => Effect.Effect<boolean | AskAnswer>
  readonly allow?: ReadonlyArray<AllowRule>
  readonly sandbox?: RuntimeOptions["sandbox"]
  readonly terminal?: Layer.Layer<UserTerminal>
  /** Where a subagent's events go (tagged with the task call's id). */
  readonly onSubagentEvent?: (parentCallId: string, event: AgentEvent) => Effect.Effect<void>
  /** Told what each subagent's turn cost, so the parent turn's usage includes it. */
  readonly onSubagentUsage?: (usage: Usage) => void
  /**
   * The session's meter: each subagent request is added as it is answered and the budget stops a subagent as it
   * stops the session (parallel task calls share it), so a subagent that fails or loops cannot spend past it.
   */
  readonly cost?: CostMeter
  /** The session's --fallback-model targets: a subagent falls back as the session does. */
  readonly fallbacks?: ReadonlyArray<FallbackTarget>
  readonly customAgents?: ReadonlyArray<CustomAgent>
  /** Added after every subagent's system prompt, its role's included. */
  readonly subagentPromptAppend?: string
  /** Where a custom agent's front-matter hooks report, and whether a project's run untrusted (`--trust-plugins`); without it they do not run. */
  readonly agentHooks?: { readonly onProblem: (message: string) => void; readonly trustProject: boolean }
}

/** The tools an agent with this profile gets: the profile's selection (task included where the profile has it). */
export const profileTools = (profile: Profile, all: ReadonlyArray<Tool>): ReadonlyArray<Tool> => profile.select(all)

/** A tool source seen through a profile: only the tools the profile would select. */
export const profileSources = (profile: Profile, sources: ReadonlyArray<ToolSource> = []): ReadonlyArray<ToolSource> =>
  sources.map((source) => ({
    tools: () => profile.select(source.tools()),
    lookup: (name) => {
      const tool = source.lookup(name)
      return tool && profile.select([tool]).length > 0 ? tool : undefined
    },
  }))

/**
 * The refusal of a tool the profile leaves out, found among every tool available
 * (MCP tools included) by the names the registry answers to.
 */
export const profileWithheld = (profile: Profile, all: ReadonlyArray<Tool>, sources: ReadonlyArray<ToolSource> = []) => {
  const chosen = new Set(profile.select(all))
  const others = makeRegistry(all.filter((t) => !chosen.has(t)))
  return (name: string): string | undefined => {
    const tool = others.lookup(name) ?? sources.reduce<Tool | undefined>((found, s) => found ?? s.lookup(name), undefined)
    return tool && profile.select([tool]).length === 0 ? profile.refusal(tool) : undefined
  }
}

/**
 * Runs subagents for the task tool: each one gets a fresh history, the
 * profile's tools (read-only for explore), its own read ledger and session id,
 * the same model and permissions, and returns its final answer as the summary.
 */
export const subagentLayer = (options: AgentRuntimeOptions) =>
  Layer.effect(
    SubagentRunner,
    Effect.gen(function* () {
      const services = yield* Effect.context<Exclude<ToolServices, SubagentRunner>>()
      const config = Context.get(services, Config)
      const maxSteps = config.get("subagent_max_steps", AGENT_DEFAULTS.subagent_max_steps)
      let counter = 0
      const custom = options.customAgents ?? []
      const agents = ["explore", ...custom.map((a) => a.name)]
      return {
        agents,
        run: (request) =>
          Effect.gen(function* () {
            const own = custom.find((a) => a.name === request.agent)
            const profile = own ? PROFILES.code : (PROFILES[request.agent as "explore"] ?? PROFILES.explore)
            const chosen = profile.select(options.allTools).filter((t) => agentMayCall(own, t))
            // Its own front matter's hooks, around its calls only, while it runs (Claude Code's scope for an agent's hooks).
            const sandbox = Option.getOrUndefined(Context.getOption(services, Sandbox))
            const given = { tools: chosen, sources: agentSources(own, profileSources(profile, options.toolSources)) }
            const { tools, sources } = options.agentHooks
              ? withAgentHooks(given, own, {
                  root: options.boot.root,
                  env: options.env,
                  session: { id: options.sessionId },
                  onProblem: options.agentHooks.onProblem,
                  trustProject: options.agentHooks.trustProject,
                  ...(sandbox ? { confine: confinementOf(sandbox) } : {}),
                })
              : given
            const childId = `${options.sessionId}-sub${++counter}`
            const childServices = Layer.mergeAll(
              Layer.succeedContext(services),
              FileLedger.enforcing,
              SessionInfo.layer({ id: childId, interactive: true }),
              SubagentRunner.unavailable,
              // The background commands it starts are its own, ended with it (below).
              ...Option.match(Context.getOption(services, BackgroundShells), { onNone: () => [], onSome: (shells) => [Layer.succeed(BackgroundShells, ownedBy(shells, childId))] }),
            )
            const registry = registryWithLoader(
              tools,
              sources,
              agentWithheld(own, options.allTools, options.toolSources ?? [], profileWithheld(profile, options.allTools, options.toolSources)),
              Context.get(services, Permissions).deniedOutright,
            )
            const runnerLayer = ToolRunner.layer<ToolServices>(registry).pipe(
              Layer.provide(childServices),
            )
            const result = yield* Effect.gen(function* () {
              const runner = yield* ToolRunner
              return yield* runTurn({ items: [] }, request.objective, {
                model: options.fallbacks && options.fallbacks.length > 0 ? withFallback(options.boot.model, options.fallbacks) : options.boot.model,
                ...(options.cost ? { cost: options.cost } : {}),
                runner,
                engine: options.engine,
                system: systemPrompt(profile, options.boot.facts, [own ? `# Your role: ${own.name}\n${own.prompt}` : "", options.subagentPromptAppend ?? ""].filter((t) => t !== "").join("\n\n")),
                maxSteps,
                offer: offerFromConfig(config),
                mayCall: (tools) => {
                  if (offersBash(tools)) Option.map(Context.getOption(services, Sandbox), (s) => s.commandComing())
                },
                ...(options.onSubagentEvent ? { emit: (e: AgentEvent) => options.onSubagentEvent!(request.parentCallId, e) } : {}),
              })
            }).pipe(
              Effect.provide(runnerLayer),
              // Its background commands end with it (however it ends): nobody is left to read or stop them.
              Effect.ensuring(Option.match(Context.getOption(services, BackgroundShells), { onNone: () => Effect.void, onSome: (shells) => Effect.asVoid(shells.stopOwnedBy(childId)) })),
            )
            options.onSubagentUsage?.(result.usage)
            const report: SubagentReport = {
              summary: result.answer,
              status: result.status,
              steps: result.stats.steps,
              tool_calls: result.stats.tool_calls,
              input_tokens: result.usage.inputTokens,
              output_tokens: result.usage.outputTokens,
              ...(result.error ? { error: result.error } : {}),
            }
            return report
          }),
      }
    }),
  )

/** The tool runtime of an agent session: the profile's tools, read-before-write enforced, task backed by subagents. */
export const agentToolRuntime = (options: AgentRuntimeOptions) =>
  makeToolRuntime({
    // The model's paths are root-relative: results name paths relative to the root, so
    // relative inputs must resolve there too, or a session started in a subfolder would
    // read "src/a.ts" as "<subfolder>/src/a.ts". The user's folder is told in the prompt.
    cwd: options.boot.root,
    env: options.env,
    root: options.boot.root,
    config: options.boot.config,
    tools: profileTools(options.profile, options.allTools),
    toolSources: profileSources(options.profile, options.toolSources),
    withheld: profileWithheld(options.profile, options.allTools, options.toolSources),
    onAsk: options.onAsk,
    permissions: { allow: options.allow ?? [] },
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    session: { id: options.sessionId, interactive: true },
    enforceReads: true,
    ...(options.terminal ? { terminal: options.terminal } : {}),
    subagents: subagentLayer(options),
  })

const VERIFY_TAIL = 6000

/** Runs the configured `verify` command through /bin/sh in the project root, inside the command sandbox; keeps the end of its output. */
export const verifyRunner = (command: string, root: string, env: Readonly<Record<string, string | undefined>>, timeoutMs: number) =>
  Effect.gen(function* () {
    const processes = yield* ProcessRunner
    let output = ""
    const decoder = new TextDecoder()
    const sink = {
      write: (chunk: Uint8Array) => {
        output += decoder.decode(chunk, { stream: true })
        if (output.length > VERIFY_TAIL * 4) output = output.slice(-VERIFY_TAIL * 2)
      },
    }
    const cleanEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"))
    // verify runs under the same sandbox as bash.
    const sandbox = yield* Sandbox
    const wrapped = yield* sandbox.wrap({ cwd: root }).pipe(Effect.result)
    if (wrapped._tag === "Failure") return { exitCode: 127, output: wrapped.failure.message, timedOut: false } satisfies VerifyOutcome
    const { wrap, finish } = wrapped.success
    const outcome = yield* processes
      .run({ file: "/bin/sh", args: ["-c", command], cwd: root, env: cleanEnv, timeoutMs, killGraceMs: 2000, drainMs: 500, stdout: sink, stderr: sink, ...(wrap ? { wrap } : {}) })
      .pipe(Effect.ensuring(finish("")), Effect.result)
    if (outcome._tag === "Failure") return { exitCode: 127, output: outcome.failure.message, timedOut: false } satisfies VerifyOutcome
    const tail = output.length > VERIFY_TAIL ? `[…]\n${output.slice(-VERIFY_TAIL)}` : output
    return { exitCode: shellExit(outcome.success, wrapped.success.confined).code, output: tail.trimEnd(), timedOut: outcome.success.timedOut } satisfies VerifyOutcome
  })
