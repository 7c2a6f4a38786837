import { Context, Effect, Layer } from "effect"
import { toolError, type ToolError } from "../protocol/tool-error.ts"

/**
 * A subagent the caller defines (the Agent SDK's `agents` option, a Claude Code plugin's `agents/` files) beside the built-in `explore`: the task tool
 * runs it with its own instructions after anvil's system prompt, and its tools (anvil names; all of the code
 * profile's when unset, less `disallowedTools`; never task or question).
 */
export interface CustomAgent {
  readonly name: string
  readonly description: string
  readonly prompt: string
  readonly tools?: ReadonlyArray<string> | undefined
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /**
   * Its front matter's `hooks` (Claude Code's hooks format), in force while it runs; with the file that declares
   * them and whether it came with the project (whose hooks need trust and run in the sandbox).
   */
  readonly hooks?: { readonly value: unknown; readonly file: string; readonly project: boolean } | undefined
}

/** What the task tool asks of a subagent. */
export interface SubagentRequest {
  /** The profile the subagent runs with ("explore"). */
  readonly agent: string
  readonly objective: string
  /** The task call's id, so front ends can nest the subagent's activity under it. */
  readonly parentCallId: string
}

export interface SubagentReport {
  readonly summary: string
  readonly status: "success" | "error" | "cancelled"
  readonly steps: number
  readonly tool_calls: number
  readonly input_tokens: number
  readonly output_tokens: number
  readonly error?: string
}

/**
 * Runs subagents for the task tool. The agent layer provides the real one (a
 * fresh history, the profile's restricted tools, the same model); outside an
 * agent session (`anvil tool task`) there is none and the call fails cleanly.
 */
export interface SubagentRunnerShape {
  /** The profiles a subagent may use. */
  readonly agents: ReadonlyArray<string>
  readonly run: (request: SubagentRequest) => Effect.Effect<SubagentReport, ToolError>
}

export class SubagentRunner extends Context.Service<SubagentRunner, SubagentRunnerShape>()("anvil/SubagentRunner") {
  /** No subagents: outside an agent session. */
  static absent: SubagentRunnerShape = {
    agents: [],
    run: () =>
      Effect.fail(
        toolError("EXECUTION_ERROR", "The task tool runs subagents only inside an agent session (anvil chat or anvil run).", {
          nextStep: "do the task with the other tools directly, or give it to the agent: anvil run \"<the task>\".",
        }),
      ),
  }
  static unavailable = Layer.succeed(SubagentRunner, SubagentRunner.absent)
}
