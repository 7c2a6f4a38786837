import type { Effect } from "effect"
import type { LanguageModelShape, ThinkingRequest, Usage } from "../llm/model.ts"
import type { ToolRunnerShape } from "../tool-framework/runner.ts"
import type { CompactionSettings } from "./compaction.ts"
import type { CostMeter } from "./cost-meter.ts"
import type { AgentEvent, TurnResult } from "./events.ts"
import type { HistoryItem, SummaryItem } from "./history.ts"
import type { EngineName } from "./profiles.ts"
import type { ToolOffer } from "./tool-offer.ts"

// What one turn of the loop (loop.ts) is given — the model, the tools' runner, limits, the session's hooks into it —
// what it reads and extends, and what it records.

/** What the loop persists (the session store appends these as JSON lines). */
export type LoopRecord =
  | { readonly type: "item"; readonly item: HistoryItem }
  | { readonly type: "compaction"; readonly replaced: number; readonly summary: SummaryItem }
  | { readonly type: "turn_end"; readonly result: TurnResult }

/** The result of an auto-verification run. */
export interface VerifyOutcome {
  readonly exitCode: number
  /** The end of the combined output. */
  readonly output: string
  readonly timedOut: boolean
  /** The person declined to run it (the project's verify outside the sandbox): no check this session. */
  readonly skipped?: boolean
}

export interface LoopOptions {
  readonly model: LanguageModelShape
  readonly runner: ToolRunnerShape
  readonly engine: EngineName
  /** The system prompt without the ReAct tool catalogue (added here for that engine). */
  readonly system: string
  readonly maxSteps: number
  readonly compaction?: CompactionSettings
  /** Auto-verification after a turn that changed non-documentation files. */
  readonly verify?: {
    readonly command: string
    readonly run: Effect.Effect<VerifyOutcome>
    /** Verification rounds per turn (a failing check goes back to the model, which may fix and finish again). */
    readonly maxAttempts: number
  }
  /** Front-end events. */
  readonly emit?: (event: AgentEvent) => Effect.Effect<void>
  /** Persistence. */
  readonly record?: (record: LoopRecord) => Effect.Effect<void>
  /** Completes when the user cancels (Ctrl-C): the running tool is interrupted and the turn ends. */
  readonly cancelled?: Effect.Effect<void>
  /** How many identical failing calls end the turn. Default 3. */
  readonly repeatLimit?: number
  /** Facts that change while the turn runs (an MCP server that failed), added to the system prompt of each request. */
  readonly systemNote?: () => string
  /** Tokens the turn's subagents have spent so far (added to the result's usage). */
  readonly subagentUsage?: () => Usage
  /** Which tools each request offers (default: rarely used ones on demand through load_tools). */
  readonly offer?: ToolOffer
  /** Context for the model that goes before the prompt, each as a message of its own (a SessionStart hook's). */
  readonly context?: ReadonlyArray<string>
  /**
   * Completes when the first request may go: the session's MCP servers connected or failed, or their start-up
   * wait over. Awaited before the first request (Ctrl-C ends the wait), so their tools are in it.
   */
  readonly ready?: Effect.Effect<void>
  /**
   * Told the tools the model may call once its answer starts coming (the server's response arrived; its first words
   * are still being made, which takes far longer than a tool's preparation), so that what a call needs can be made
   * meanwhile: bash's cage. Not at the session's start: a session that never asks the model pays nothing.
   */
  readonly mayCall?: (tools: ReadonlyArray<string>) => void
  /** What the session spent and its budget: every response is added; passing the budget ends the turn (max_budget). */
  readonly cost?: CostMeter
  /** Extended thinking for the next request (none when it returns undefined); read before each one. */
  readonly thinking?: () => ThinkingRequest | undefined
}

/** Whether bash is among the tools offered (under its own name or Claude's). */
export const offersBash = (tools: ReadonlyArray<string>): boolean => tools.some((t) => t.toLowerCase() === "bash")

/** A conversation: the history the loop reads and extends. */
export interface Conversation {
  items: Array<HistoryItem>
  /** Tools loaded on demand or called so far (lowercase names): offered in every later request, compaction or not. */
  loaded?: Set<string>
}
