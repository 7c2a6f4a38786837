import { Clock, Effect, Fiber } from "effect"
import { collectTurn, type ModelEvent, type ModelToolSpec } from "../llm/model.ts"
import { combineUsage, noUsage, sumUsage } from "../llm/usage.ts"
import { compactHistory, DEFAULT_COMPACTION } from "./compaction.ts"
import type { TurnReason, TurnResult, TurnStatus } from "./events.ts"
import { isDocPath } from "./file-changes.ts"
import { estimateTokens, toNativeMessages, toReactMessages, type HistoryItem } from "./history.ts"
import { REACT_STOP, reactInstructions } from "./react.ts"
import { collectLoaded, DEFAULT_OFFER, offeredSpecs } from "./tool-offer.ts"
import { counted } from "../protocol/plural.ts"
import { readReply } from "./reply.ts"
import { runVerify } from "./verify-step.ts"
import { runCalls, type CallsState } from "./tool-step.ts"
import { makeDenials } from "./denials.ts"
import { agentEventOf, requestFailure } from "./model-events.ts"
import { promptTooLong } from "./prompt-fit.ts"
import type { Conversation, LoopOptions } from "./loop-options.ts"


/**
 * One user turn of the agent: the prompt goes in, the model is asked, its
 * tool calls run through the pipeline (read-only ones concurrently, the rest
 * in order), results go back, until the model answers without calling tools.
 * Around that: a step limit, cancellation, a guard against the same failing
 * call repeated, compaction near the context window, auto-verification.
 * Never fails: every problem ends the turn with a status and a reason.
 */
export const runTurn = (conversation: Conversation, prompt: string, options: LoopOptions): Effect.Effect<TurnResult> =>
  Effect.gen(function* () {
    const emit = options.emit ?? (() => Effect.void)
    const record = options.record ?? (() => Effect.void)
    const { model, runner } = options
    const react = options.engine === "react"
    // The tool list is read again for each request: tools may join during the turn (MCP servers connecting).
    let specs: ReadonlyArray<ModelToolSpec> = []
    let system = options.system
    let nativeTools: ReadonlyArray<ModelToolSpec> = []
    let toolsJson = "[]"
    const refreshTools = () => {
      const loaded = collectLoaded(conversation.items, runner.registry, (conversation.loaded ??= new Set()))
      specs = offeredSpecs(runner.registry.tools, loaded, options.offer ?? DEFAULT_OFFER)
      const note = options.systemNote?.() ?? ""
      const base = note === "" ? options.system : `${options.system}\n\n${note}`
      system = react ? `${base}\n\n${reactInstructions(specs)}` : base
      nativeTools = react ? [] : specs
      toolsJson = JSON.stringify(nativeTools)
    }
    refreshTools()
    const repeatLimit = options.repeatLimit ?? 3
    const compaction = options.compaction ?? DEFAULT_COMPACTION

    // What the calls of the turn's steps leave behind: cancelled, a hook's stop, counts, failures, changed files.
    const progress: CallsState = { cancelled: false, stopped: undefined, toolCalls: 0, failures: new Map(), changed: new Set() }
    const started = yield* Clock.currentTimeMillis
    const watcher = options.cancelled
      ? yield* Effect.forkDetach(Effect.andThen(options.cancelled, Effect.sync(() => void (progress.cancelled = true))))
      : undefined
    const cancelSignal = options.cancelled

    let usage = noUsage()
    let compactionUsage = noUsage()
    let apiMs = 0
    const denied = makeDenials()
    let verifyFailed = false
    let verifyDeclined = false
    let steps = 0
    let compactions = 0
    let verifications = 0
    const requestBytes: Array<number> = []
    let answer = ""
    let lastInput = 0

    const append = (item: HistoryItem) =>
      Effect.gen(function* () {
        conversation.items.push(item)
        yield* record({ type: "item", item })
      })

    const finish = (status: TurnStatus, reason: TurnReason, error?: string, apiError?: TurnResult["api_error"]) =>
      Effect.gen(function* () {
        if (watcher) yield* Fiber.interrupt(watcher)
        const now = yield* Clock.currentTimeMillis
        const subagents = options.subagentUsage?.() ?? noUsage()
        const result: TurnResult = {
          status,
          reason,
          answer,
          usage: sumUsage(usage, subagents, compactionUsage),
          usage_parts: { subagents: { ...subagents }, compaction: { ...compactionUsage } },
          denials: denied.list(),
          stats: {
            steps,
            tool_calls: progress.toolCalls,
            duration_ms: Math.max(0, now - started),
            request_bytes: requestBytes,
            compactions,
            verifications,
            api_ms: apiMs,
          },
          ...(error !== undefined ? { error } : {}),
          ...(apiError !== undefined ? { api_error: apiError } : {}),
          ...(reason === "hook_stopped" && progress.stopped ? { hook_stopped: progress.stopped } : {}),
        }
        if (error !== undefined) yield* emit({ type: "error", message: error })
        yield* record({ type: "turn_end", result })
        yield* emit({ type: "turn_end", result })
        return result
      })

    const messages = () => (react ? toReactMessages(conversation.items) : toNativeMessages(conversation.items))

    const maybeCompact = Effect.gen(function* () {
      const estimate = Math.max(estimateTokens(system, messages(), toolsJson), lastInput)
      if (estimate <= model.contextWindow * compaction.threshold) return
      const done = yield* compactHistory(conversation.items, model, compaction)
      if (!done) return
      conversation.items = [...done.items]
      compactions++
      compactionUsage = combineUsage(compactionUsage, done.usage)
      options.cost?.add(model.id, done.usage)
      lastInput = 0
      yield* record({ type: "compaction", replaced: done.replaced, summary: done.summary })
      yield* emit({
        type: "compaction",
        replaced: done.replaced,
        tokens_before: estimate,
        tokens_after: estimateTokens(system, messages(), toolsJson),
      })
    })

    // A prompt that cannot fit the model's context window with the system prompt and the tools is refused before
    // anything is sent or kept: no compaction could make room, and the session stays usable for the next prompt.
    const tooLong = promptTooLong(model, system, toolsJson, [...(options.context ?? []), prompt])
    if (tooLong !== undefined) return yield* finish("error", "prompt_too_long", tooLong)
    for (const text of options.context ?? []) yield* append({ type: "user", text, source: "context" })
    yield* append({ type: "user", text: prompt, source: "prompt" })
    if (options.ready && cancelSignal) {
      if (yield* Effect.raceFirst(Effect.as(options.ready, false), Effect.as(cancelSignal, true))) progress.cancelled = true
    } else if (options.ready) yield* options.ready

    // The model that answers after a fallback took over (the session's model otherwise).
    let fellBackTo: string | undefined
    const overBudget = () => options.cost?.overBudget()
    for (;;) {
      if (progress.cancelled) return yield* finish("cancelled", "cancelled")
      // Spent before this request (an earlier turn, this turn's subagents): no more is spent.
      const broke = overBudget()
      if (broke !== undefined) return yield* finish("error", "max_budget", broke)
      if (steps >= options.maxSteps) {
        return yield* finish("error", "max_steps", `Stopped after ${counted(options.maxSteps, "model step")} (the step limit: raise it with --max-steps or max_steps in anvil.json; an Agent SDK program with maxTurns, claude -p with --max-turns).`)
      }
      refreshTools()
      yield* maybeCompact
      steps++
      yield* emit({ type: "step_start", step: steps })

      let partial = ""
      const onEvent = (event: ModelEvent): Effect.Effect<void> => {
        if (event.type === "text_delta") partial += event.text
        else if (event.type === "request") {
          options.mayCall?.(specs.map((spec) => spec.name))
          requestBytes.push(event.bytes)
        } else if (event.type === "fallback") fellBackTo = event.to
        const shown = agentEventOf(event, steps)
        return shown ? emit(shown) : Effect.void
      }
      // Asked for each request: the host may change the thinking budget while the session runs.
      const thinking = options.thinking?.()
      const request = {
        system,
        messages: messages(),
        tools: nativeTools,
        ...(react ? { stop: REACT_STOP } : {}),
        ...(thinking ? { thinking } : {}),
      }
      const streaming = collectTurn(model.stream(request), onEvent)
      const askedAt = yield* Clock.currentTimeMillis
      const exit = yield* (cancelSignal ? Effect.raceFirst(streaming, Effect.andThen(cancelSignal, Effect.interrupt)) : streaming).pipe(Effect.exit)
      apiMs += Math.max(0, (yield* Clock.currentTimeMillis) - askedAt)
      if (exit._tag === "Failure") {
        if (partial.trim() !== "") yield* append({ type: "assistant", text: partial, tool_calls: [], interrupted: true })
        const failed = requestFailure(exit.cause)
        if (failed !== undefined) return yield* finish("error", "model_error", failed.message, failed.apiError)
        progress.cancelled = true
        return yield* finish("cancelled", "cancelled")
      }
      const turn = exit.value
      usage = combineUsage(usage, turn.usage)
      options.cost?.add(model.id, turn.usage)
      lastInput = turn.usage.inputTokens + turn.usage.outputTokens

      // A reply the server cut at its output token limit may be a cut answer: the front ends report max_tokens.
      const cut = { ...(turn.finish === "length" ? { cut_off: true } : {}), ...(fellBackTo !== undefined ? { model: fellBackTo } : {}) }
      const taken = new Set(conversation.items.flatMap((i) => (i.type === "assistant" ? i.tool_calls.map((c) => c.id) : [])))
      const { calls, assistant, event, answer: final } = readReply(turn, react, steps, taken, cut)
      if (final !== undefined) answer = final
      yield* emit(event)
      yield* append(assistant)
      // As Claude Code checks after each message: a reply that passed the budget ends the turn, its calls not run.
      const spent = overBudget()
      if (spent !== undefined) return yield* finish("error", "max_budget", spent)

      if (calls.length === 0) {
        const nonDoc = [...progress.changed].filter((p) => !isDocPath(p))
        if (options.verify && nonDoc.length > 0 && verifications < options.verify.maxAttempts && !progress.cancelled && !verifyDeclined) {
          verifications++
          progress.changed.clear()
          const checked = yield* runVerify(options.verify, nonDoc, cancelSignal, emit)
          if (checked.kind === "cancelled") {
            progress.cancelled = true
            return yield* finish("cancelled", "cancelled")
          }
          if (checked.kind === "declined") {
            // Not run (the person declined it): not counted, and not offered again this turn.
            verifications--
            verifyDeclined = true
          } else {
            yield* append({ type: "user", text: checked.report, source: "verify" })
            verifyFailed = !checked.passed
            if (!checked.passed) continue
          }
        }
        if (verifyFailed) {
          return yield* finish("error", "verify_failed", `The verify command \`${options.verify?.command}\` still failed when the turn ended.`)
        }
        const refused = denied.summary()
        if (refused !== undefined) return yield* finish("error", "permission_denied", refused)
        if (answer.trim() === "") return yield* finish("error", "empty_answer", "The model ended the turn without an answer.")
        return yield* finish("success", "completed")
      }

      const repeated = yield* runCalls(calls, { runner, cancelSignal, emit, append, denied, repeatLimit, state: progress })
      // Calls never started stay unanswered; the history drops them when it is sent (toNativeMessages).
      if (progress.cancelled) {
        return yield* finish("cancelled", "cancelled")
      }
      // A hook ended the turn: the model is not asked again (its reason went to the person, not the model).
      if (progress.stopped) return yield* finish("success", "hook_stopped")
      if (repeated !== undefined) {
        return yield* finish("error", "repeated_failure", `The same failing call was made ${repeatLimit} times: ${repeated}. Stopped the turn.`)
      }
    }
  })
