import type { Effect, Layer } from "effect"
import type { ConfigWarning } from "../config/check.ts"
import type { LanguageModelShape, ThinkingRequest } from "../llm/model.ts"
import type { ModelHttpShape } from "../llm/http.ts"
import type { McpEvent, McpHub } from "../mcp/mcp-hub.ts"
import type { ServerSource } from "../mcp/server-sources.ts"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import type { AllowRule } from "../permission/allow-rule.ts"
import type { SlashCommand } from "../plugins/claude-commands.ts"
import type { HookEntry } from "../plugins/hook-runner.ts"
import type { PluginSet } from "../plugins/plugin-host.ts"
import type { FreezeReport } from "../plugins/watchdog.ts"
import type { SandboxStatus } from "../sandbox/sandbox-contract.ts"
import type { BackgroundShellsShape } from "../shell/background-types.ts"
import type { UserTerminal } from "../terminal/user-terminal.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { CustomAgent } from "./agent-runtime.ts"
import type { ContextUsage } from "./context-usage.ts"
import type { AgentEvent, TurnResult } from "./events.ts"
import type { Conversation } from "./loop-options.ts"
import type { CostMeter } from "./cost-meter.ts"
import type { EngineName, Profile } from "./profiles.ts"

// What an agent session is asked to be (AgentSessionOptions: the caller's model, profile, tools, permissions, prompt,
// session to resume, hooks) and what it offers once open (AgentSessionShape), apart from how agent-session.ts opens it.

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
  /** How every model of the session (set_model's, the fallbacks') reaches its server: the debug log watches it. */
  readonly http?: ModelHttpShape
  /** Load plugins (tools, hooks, prompt additions) once the project is known. Default: none. */
  readonly plugins?: {
    /** Trust project plugins for this session (`--trust-plugins`). */
    readonly trustProject?: boolean
    /** Where hook failures and plugin problems are told. */
    readonly onProblem?: (message: string) => void
    /** What standard output gets if a plugin freezes anvil (plugins/watchdog.ts), for the session's id; stderr always gets the message. */
    readonly freezeReport?: (sessionId: string) => FreezeReport
  }
  /** Resume into a copy under a new id (the original session stays as it was). */
  readonly fork?: boolean
  /** Hooks of the program driving anvil (the Agent SDK host), run after the plugins' hooks. */
  readonly hooks?: ReadonlyArray<HookEntry>
  /** The system prompt: `replace` instead of anvil's own, and/or `append` after it (the Agent SDK's systemPrompt options). */
  readonly systemPrompt?: { readonly replace?: string; readonly append?: string }
  /** Added after every subagent's system prompt (the Agent SDK's appendSubagentSystemPrompt). */
  readonly subagentPromptAppend?: string
  /** Extended thinking from the first request (see setThinking). */
  readonly thinking?: ThinkingRequest
  /** MCP servers: where their state changes and progress go, and server definitions from plugin folders. */
  readonly mcp?: {
    /** Start the project's untrusted servers for this session (`--trust-mcp`). */
    readonly trustProject?: boolean
    readonly onEvent?: (event: McpEvent) => void
    readonly extraSources?: ReadonlyArray<ServerSource>
    /** Only `extraSources` start: not anvil.json's, .mcp.json's or the plugins' servers (Claude Code's `--strict-mcp-config`). */
    readonly strict?: boolean
  }
  /** Told about anvil.json's warnings (unknown keys, wrong types) before anything else starts. */
  readonly onConfigWarnings?: (warnings: ReadonlyArray<ConfigWarning>) => void
  /** `--strict`: configuration warnings are an AgentSetupError. */
  readonly strict?: boolean
  /** Tools to offer in every request even when they would be on demand (the host named them: allowedTools, its own MCP tools). */
  readonly alwaysOffer?: ReadonlyArray<string>
  /** Claude Code's `--add-dir`: folders outside the project the tools may read and write, and confined commands write. Absolute. */
  readonly addDirs?: ReadonlyArray<string>
  /** Claude Code's `--fallback-model`: models (as `--model` names them) tried in order when the session's is overloaded or unavailable. */
  readonly fallbackModels?: ReadonlyArray<string>
  /** Claude Code's `--max-budget-usd`: a turn ends (max_budget) once the session's spend reaches it. */
  readonly maxBudgetUsd?: number
  /** False: the session's file is removed when it closes, so it cannot be resumed (`--no-session-persistence`). */
  readonly persist?: boolean
  /** Told what the person should know about how the session runs (a budget that cannot count a model's price). */
  readonly onNotice?: (message: string) => void
}

/** An agent conversation bound to a session file (the `AgentSession` service's shape). */
export interface AgentSessionShape {
  readonly id: string
  readonly file: string
  readonly resumed: boolean
  readonly root: string
  readonly model: LanguageModelShape
  /** What the session has spent (per model, in dollars where the price is known) and its budget. */
  readonly cost: CostMeter
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
  /** The subagents the task tool runs beside `explore`, as the model is told of them. */
  readonly agents: ReadonlyArray<CustomAgent>
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
