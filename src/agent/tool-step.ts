import { Clock, Effect } from "effect"
import type { ModelToolCall } from "../llm/model.ts"
import type { ToolCall, ToolOutcome, ToolRunnerShape } from "../tool-framework/runner.ts"
import { groupCalls, hookStopped, stableJson } from "./call-parsing.ts"
import type { makeDenials } from "./denials.ts"
import type { AgentEvent } from "./events.ts"
import { changedFiles } from "./file-changes.ts"
import type { HistoryItem, ToolItem } from "./history.ts"

const READ_CONCURRENCY = 8

/** What the turn keeps across its steps' calls; runCalls updates it. */
export interface CallsState {
  /** The turn was cancelled (a tool came back CANCELLED after the cancel signal). */
  cancelled: boolean
  /** A plugin hook's stop (Claude Code's `continue: false`): the turn ends once the call's result is in. */
  stopped: { readonly plugin: string; readonly reason: string } | undefined
  toolCalls: number
  /** How often each exact call (tool and stable JSON of its parameters) has failed this turn. */
  readonly failures: Map<string, number>
  /** Files the calls changed since the last verification. */
  readonly changed: Set<string>
}

/**
 * Runs the calls of one model step through the tool pipeline, read-only ones side by side and anything that changes
 * things alone and in order, appending each result to the history. Returns the call repeated past the limit, if one was.
 */
export const runCalls = (
  calls: ReadonlyArray<{ readonly call: ModelToolCall; readonly params: unknown }>,
  ctx: {
    readonly runner: ToolRunnerShape
    readonly cancelSignal: Effect.Effect<void> | undefined
    readonly emit: (event: AgentEvent) => Effect.Effect<void>
    readonly append: (item: HistoryItem) => Effect.Effect<void>
    readonly denied: ReturnType<typeof makeDenials>
    readonly repeatLimit: number
    readonly state: CallsState
  },
): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const { runner, cancelSignal, emit, append, state } = ctx
    const taskToolAvailable = runner.registry.has("task")
    const calledAt = yield* Clock.currentTimeMillis
    const runOne = (call: ModelToolCall, params: unknown) =>
      Effect.gen(function* () {
        const toolCall: ToolCall = { name: call.name, params, callId: call.id }
        const outcome: ToolOutcome = yield* runner.run(toolCall, {
          taskToolAvailable,
          ...(cancelSignal ? { cancelled: cancelSignal } : {}),
        })
        const now = yield* Clock.currentTimeMillis
        return { call, params, outcome, elapsed: Math.max(0, now - calledAt) }
      })
    const isReadOnly = (c: { call: ModelToolCall }) => runner.registry.lookup(c.call.name)?.readOnly === true
    let repeated: string | undefined
    for (const group of groupCalls(calls, isReadOnly)) {
      if (state.cancelled || state.stopped) break
      for (const { call, params } of group) yield* emit({ type: "tool_use", id: call.id, name: call.name, input: params })
      const results = yield* Effect.forEach(group, ({ call, params }) => runOne(call, params), {
        concurrency: group.length > 1 ? READ_CONCURRENCY : 1,
      })
      for (const { call, params, outcome, elapsed } of results) {
        state.toolCalls++
        const stop = hookStopped(outcome.envelope.context.hook_stopped)
        // A tool that came back CANCELLED saw the cancel signal (the watcher fiber may not have run yet); a hook's stop is not one.
        if (cancelSignal && outcome.envelope.error?.code === "CANCELLED" && !stop) state.cancelled = true
        ctx.denied.record(call, params, outcome)
        let text = outcome.envelope.text
        if (outcome.envelope.status === "error" && outcome.envelope.error?.code !== "CANCELLED") {
          const key = `${call.name.toLowerCase()} ${stableJson(params)}`
          const count = (state.failures.get(key) ?? 0) + 1
          state.failures.set(key, count)
          if (count === ctx.repeatLimit - 1) {
            text += `\n\nNote: this exact call has now failed ${count} times. Do not repeat it unchanged; change the parameters or the approach.`
          }
          if (count >= ctx.repeatLimit && repeated === undefined) repeated = `${call.name}(${call.arguments})`
        }
        const item: ToolItem = {
          type: "tool",
          call_id: call.id,
          name: call.name,
          text,
          metadata: { tool_raw_envelope: outcome.envelope, tool_execution_meta: outcome.meta },
        }
        for (const p of changedFiles(item)) state.changed.add(p)
        yield* append(item)
        yield* emit({ type: "tool_result", id: call.id, name: call.name, envelope: outcome.envelope, execution_meta: outcome.meta, elapsed_ms: elapsed })
        if (stop && !state.stopped) {
          state.stopped = stop
          yield* emit({ type: "hook_stopped", plugin: stop.plugin, reason: stop.reason })
        }
      }
    }
    return repeated
  })
