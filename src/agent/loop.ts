import { Cause, Clock, Effect, Fiber } from "effect"
import { collectTurn, type LanguageModelShape, type ModelEvent, type ModelToolCall, type ModelToolSpec, type Usage } from "../llm/model.ts"
import type { ToolCall, ToolOutcome } from "../tool-framework/runner.ts"
import { compactHistory, DEFAULT_COMPACTION } from "./compaction.ts"
import type { PermissionDenial, TurnReason, TurnResult, TurnStatus } from "./events.ts"
import { changedFiles, isDocPath } from "./file-changes.ts"
import { estimateTokens, toNativeMessages, toReactMessages, type AssistantItem, type HistoryItem, type ToolItem } from "./history.ts"
import { parseReact, REACT_STOP, reactInstructions } from "./react.ts"
import { collectLoaded, DEFAULT_OFFER, offeredSpecs } from "./tool-offer.ts"
import { counted } from "../protocol/plural.ts"
import { blockedBy, cutAtObservation, deniedBy, groupCalls, hookStopped, parseArguments, stableJson, uniqueCallIds, untrustedRule } from "./call-parsing.ts"
import type { Conversation, LoopOptions } from "./loop-options.ts"


/**
 * Why a prompt cannot be sent: its estimated tokens with the system prompt and the tools' definitions leave no room
 * in the model's context window for an answer (a quarter of the window, at most 8,192 tokens, is kept for it).
 * The estimate (about four characters a token) runs low for code and most other scripts, so a refusal is certain.
 */
export const promptTooLong = (model: LanguageModelShape, system: string, toolsJson: string, texts: ReadonlyArray<string>): string | undefined => {
  const tokens = estimateTokens(system, texts.map((content) => ({ role: "user" as const, content })), toolsJson)
  const room = model.contextWindow - Math.min(8192, Math.floor(model.contextWindow / 4))
  if (tokens <= room) return undefined
  const chars = texts.reduce((n, t) => n + t.length, 0)
  return (
    `PROMPT_TOO_LONG: the prompt (${chars.toLocaleString("en-US")} characters, about ${tokens.toLocaleString("en-US")} tokens with the system prompt and tools) ` +
    `cannot fit the context window of ${model.id} (${model.contextWindow.toLocaleString("en-US")} tokens, ${room.toLocaleString("en-US")} of them for the prompt); nothing was sent. ` +
    `Next step: save the text to a file in the project and ask for it to be read in parts (read with offset/limit, grep), ` +
    `or use a model with a larger window (context_window in anvil.json says what the server allows).`
  )
}

const READ_CONCURRENCY = 8

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
    const taskToolAvailable = runner.registry.has("task")
    const repeatLimit = options.repeatLimit ?? 3
    const compaction = options.compaction ?? DEFAULT_COMPACTION

    const started = yield* Clock.currentTimeMillis
    let cancelled = false
    const watcher = options.cancelled
      ? yield* Effect.forkDetach(Effect.andThen(options.cancelled, Effect.sync(() => void (cancelled = true))))
      : undefined
    const cancelSignal = options.cancelled

    const usage = { inputTokens: 0, outputTokens: 0 }
    const compactionUsage = { inputTokens: 0, outputTokens: 0 }
    let apiMs = 0
    const denials: Array<PermissionDenial> = []
    // Tools refused for lack of permission that have not run successfully since: the work they stand for was not done.
    // Tool name → the deny rule that refused it (rule and where it is set), else whether no one could be asked
    // (a scripted run's refusal) or a person (or the host) said no.
    const stillDenied = new Map<
      string,
      { readonly rule: { readonly rule: string; readonly where: string } | undefined; readonly unattended: boolean; readonly plugin?: string }
    >()
    // The project's rules that would have allowed a denied tool, had the user trusted them.
    const untrustedRules = new Map<string, { readonly rule: string; readonly next_step: string }>()
    let verifyFailed = false
    let verifyDeclined = false
    let steps = 0
    let toolCallCount = 0
    let compactions = 0
    let verifications = 0
    const requestBytes: Array<number> = []
    const failures = new Map<string, number>()
    const changed = new Set<string>()
    let answer = ""
    let lastInput = 0
    // A plugin hook's stop (Claude Code's `continue: false`): the turn ends once the call's result is in.
    let stopped: { readonly plugin: string; readonly reason: string } | undefined

    const append = (item: HistoryItem) =>
      Effect.gen(function* () {
        conversation.items.push(item)
        yield* record({ type: "item", item })
      })

    const finish = (status: TurnStatus, reason: TurnReason, error?: string, apiError?: TurnResult["api_error"]) =>
      Effect.gen(function* () {
        if (watcher) yield* Fiber.interrupt(watcher)
        const now = yield* Clock.currentTimeMillis
        const subagents = options.subagentUsage?.() ?? { inputTokens: 0, outputTokens: 0 }
        const result: TurnResult = {
          status,
          reason,
          answer,
          usage: {
            inputTokens: usage.inputTokens + subagents.inputTokens + compactionUsage.inputTokens,
            outputTokens: usage.outputTokens + subagents.outputTokens + compactionUsage.outputTokens,
          },
          usage_parts: { subagents: { ...subagents }, compaction: { ...compactionUsage } },
          denials: [...denials],
          stats: {
            steps,
            tool_calls: toolCallCount,
            duration_ms: Math.max(0, now - started),
            request_bytes: requestBytes,
            compactions,
            verifications,
            api_ms: apiMs,
          },
          ...(error !== undefined ? { error } : {}),
          ...(apiError !== undefined ? { api_error: apiError } : {}),
          ...(reason === "hook_stopped" && stopped ? { hook_stopped: stopped } : {}),
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
      compactionUsage.inputTokens += done.usage.inputTokens
      compactionUsage.outputTokens += done.usage.outputTokens
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

    const runOne = (call: ModelToolCall, params: unknown, calledAt: number) =>
      Effect.gen(function* () {
        const toolCall: ToolCall = { name: call.name, params, callId: call.id }
        const outcome: ToolOutcome = yield* runner.run(toolCall, {
          taskToolAvailable,
          ...(cancelSignal ? { cancelled: cancelSignal } : {}),
        })
        const now = yield* Clock.currentTimeMillis
        return { call, params, outcome, elapsed: Math.max(0, now - calledAt) }
      })

    // A prompt that cannot fit the model's context window with the system prompt and the tools is refused before
    // anything is sent or kept: no compaction could make room, and the session stays usable for the next prompt.
    const tooLong = promptTooLong(model, system, toolsJson, [...(options.context ?? []), prompt])
    if (tooLong !== undefined) return yield* finish("error", "prompt_too_long", tooLong)
    for (const text of options.context ?? []) yield* append({ type: "user", text, source: "context" })
    yield* append({ type: "user", text: prompt, source: "prompt" })
    if (options.ready && cancelSignal) {
      if (yield* Effect.raceFirst(Effect.as(options.ready, false), Effect.as(cancelSignal, true))) cancelled = true
    } else if (options.ready) yield* options.ready

    // The model that answers after a fallback took over (the session's model otherwise).
    let fellBackTo: string | undefined
    const overBudget = () => options.cost?.overBudget()
    for (;;) {
      if (cancelled) return yield* finish("cancelled", "cancelled")
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
        switch (event.type) {
          case "text_delta":
            partial += event.text
            return emit({ type: "text_delta", text: event.text })
          case "thinking_delta":
            return emit({ type: "thinking_delta", text: event.text })
          case "raw":
            return emit({ type: "raw", data: event.data })
          case "request":
            options.mayCall?.(specs.map((spec) => spec.name))
            requestBytes.push(event.bytes)
            return emit({ type: "model_request", step: steps, bytes: event.bytes, attempt: event.attempt })
          case "retry":
            return emit({
              type: "retry",
              attempt: event.attempt,
              max_retries: event.maxRetries,
              delay_ms: event.delayMs,
              message: event.error.message,
              ...(event.error.status !== undefined ? { status: event.error.status } : {}),
            })
          case "fallback":
            fellBackTo = event.to
            return emit({ type: "model_fallback", from: event.from, to: event.to, message: event.error.message })
          default:
            return Effect.void
        }
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
        const failure = exit.cause.reasons.find(Cause.isFailReason)
        if (partial.trim() !== "") yield* append({ type: "assistant", text: partial, tool_calls: [], interrupted: true })
        if (failure) {
          const { kind, status } = failure.error
          return yield* finish("error", "model_error", failure.error.message, { kind, ...(status !== undefined ? { status } : {}) })
        }
        if (exit.cause.reasons.some(Cause.isInterruptReason) && !exit.cause.reasons.some(Cause.isDieReason)) {
          cancelled = true
          return yield* finish("cancelled", "cancelled")
        }
        return yield* finish("error", "model_error", `The model request failed: ${Cause.pretty(exit.cause)}`, { kind: "unknown" })
      }
      const turn = exit.value
      usage.inputTokens += turn.usage.inputTokens
      usage.outputTokens += turn.usage.outputTokens
      options.cost?.add(model.id, turn.usage)
      lastInput = turn.usage.inputTokens + turn.usage.outputTokens
      const turnUsage: Usage = turn.usage

      // The calls of this step, with their decoded parameters.
      let calls: Array<{ call: ModelToolCall; params: unknown }>
      let assistant: AssistantItem
      // A reply the server cut at its output token limit may be a cut answer: the front ends report max_tokens.
      const cut = { ...(turn.finish === "length" ? { cut_off: true } : {}), ...(fellBackTo !== undefined ? { model: fellBackTo } : {}) }
      const taken = new Set(conversation.items.flatMap((i) => (i.type === "assistant" ? i.tool_calls.map((c) => c.id) : [])))
      if (react) {
        const text = cutAtObservation(turn.text)
        const step = parseReact(text)
        if (step.kind === "action") {
          const [call] = uniqueCallIds([{ id: `react_${steps}`, name: step.tool, arguments: step.inputText }], taken) as [ModelToolCall]
          calls = [{ call, params: step.input }]
          assistant = { type: "assistant", text, tool_calls: [call], usage: turnUsage }
          yield* emit({ type: "assistant", text, tool_calls: [call], usage: turnUsage, ...cut, react: { thought: step.thought, action: step.tool, action_input: step.inputText } })
        } else {
          calls = []
          answer = step.answer
          assistant = { type: "assistant", text, tool_calls: [], usage: turnUsage }
          yield* emit({ type: "assistant", text, tool_calls: [], usage: turnUsage, ...cut, react: { thought: step.thought, final_answer: step.answer } })
        }
      } else {
        const toolCalls = uniqueCallIds(turn.toolCalls, taken)
        calls = toolCalls.map((call) => ({ call, params: parseArguments(call.arguments) }))
        const thought = turn.thinking.length > 0 ? { thinking: turn.thinking } : {}
        assistant = { type: "assistant", text: turn.text, tool_calls: toolCalls, usage: turnUsage, ...thought }
        if (calls.length === 0) answer = turn.text
        yield* emit({ type: "assistant", text: turn.text, tool_calls: toolCalls, usage: turnUsage, ...thought, ...cut })
      }
      yield* append(assistant)
      // As Claude Code checks after each message: a reply that passed the budget ends the turn, its calls not run.
      const spent = overBudget()
      if (spent !== undefined) return yield* finish("error", "max_budget", spent)

      if (calls.length === 0) {
        const nonDoc = [...changed].filter((p) => !isDocPath(p))
        if (options.verify && nonDoc.length > 0 && verifications < options.verify.maxAttempts && !cancelled && !verifyDeclined) {
          verifications++
          changed.clear()
          // The check is stopped with the turn when the user cancels.
          const run = options.verify.run
          const verifyExit = yield* (cancelSignal ? Effect.raceFirst(run, Effect.andThen(cancelSignal, Effect.interrupt)) : run).pipe(Effect.exit)
          if (verifyExit._tag === "Failure") {
            cancelled = true
            return yield* finish("cancelled", "cancelled")
          }
          const result = verifyExit.value
          if (result.skipped) {
            // Not run (the person declined it): not counted, and not offered again this turn.
            verifications--
            verifyDeclined = true
          } else {
            const passed = result.exitCode === 0 && !result.timedOut
            yield* emit({ type: "verify", command: options.verify.command, passed, exit_code: result.exitCode, output: result.output })
            const report = passed
              ? `Auto-verification passed: \`${options.verify.command}\` exited 0 after the changes to ${nonDoc.join(", ")}.`
              : `Auto-verification failed: \`${options.verify.command}\` ${result.timedOut ? "timed out" : `exited ${result.exitCode}`} after the changes to ${nonDoc.join(", ")}.\n` +
                `Output (end):\n\`\`\`\n${result.output}\n\`\`\`\nFix the problem, or explain why it is not caused by your change.`
            yield* append({ type: "user", text: report, source: "verify" })
            verifyFailed = !passed
            if (!passed) continue
          }
        }
        if (verifyFailed) {
          return yield* finish("error", "verify_failed", `The verify command \`${options.verify?.command}\` still failed when the turn ended.`)
        }
        if (stillDenied.size > 0) {
          const byPerson = [...stillDenied].filter(([, d]) => d.rule === undefined && d.plugin === undefined)
          const asked = byPerson.filter(([, d]) => d.unattended).map(([name]) => name)
          const declined = byPerson.filter(([, d]) => !d.unattended).map(([name]) => name)
          const ruled = [...stillDenied].flatMap(([name, { rule }]) => (rule ? [`${name} (rule ${rule.rule} in ${rule.where})`] : []))
          const blocked = [...stillDenied].flatMap(([name, { plugin }]) => (plugin ? [`${name} (plugin '${plugin}')`] : []))
          const steps = [
            ...(asked.length > 0 ? [`Approve ${asked.join(", ")} calls with --allow or --yes.`] : []),
            // Refused when asked: the person knows; --yes would be advice against their own answer.
            ...(declined.length > 0 ? [`${declined.join(", ")} ${declined.length === 1 ? "was" : "were"} declined when asked.`] : []),
            ...asked.flatMap((name) => {
              const u = untrustedRules.get(name)
              return u ? [`The project's rule ${u.rule} would allow ${name} but is not trusted: run '${u.next_step}' to apply it.`] : []
            }),
            ...(ruled.length > 0
              ? [`Denied by deny rules, which --yes and --allow do not override: ${ruled.join("; ")}. To let such calls run, change or remove the rule in that file's "permission" section.`]
              : []),
            ...(blocked.length > 0
              ? [`Blocked by plugin hooks, which --yes and --allow do not override: ${blocked.join("; ")}. The reason is in the call's result; to let such calls run, change the plugin or list it in "plugins.disabled".`]
              : []),
          ]
          return yield* finish("error", "permission_denied", `Permission was denied for ${[...stillDenied.keys()].join(", ")}; that part of the work was not done. ${steps.join(" ")}`)
        }
        if (answer.trim() === "") return yield* finish("error", "empty_answer", "The model ended the turn without an answer.")
        return yield* finish("success", "completed")
      }

      // Run the calls: read-only ones side by side, anything that changes things alone and in order.
      const calledAt = yield* Clock.currentTimeMillis
      const isReadOnly = (c: { call: ModelToolCall }) => runner.registry.lookup(c.call.name)?.readOnly === true
      let repeated: string | undefined
      for (const group of groupCalls(calls, isReadOnly)) {
        if (cancelled || stopped) break
        for (const { call, params } of group) yield* emit({ type: "tool_use", id: call.id, name: call.name, input: params })
        const results = yield* Effect.forEach(group, ({ call, params }) => runOne(call, params, calledAt), {
          concurrency: group.length > 1 ? READ_CONCURRENCY : 1,
        })
        for (const { call, params, outcome, elapsed } of results) {
          toolCallCount++
          const stop = hookStopped(outcome.envelope.context.hook_stopped)
          // A tool that came back CANCELLED saw the cancel signal (the watcher fiber may not have run yet); a hook's stop is not one.
          if (cancelSignal && outcome.envelope.error?.code === "CANCELLED" && !stop) cancelled = true
          if (outcome.envelope.error?.code === "PERMISSION_DENIED") {
            denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: params })
            // A tool the profile withholds (Write in plan mode) is refused by design: the turn's answer is still the result.
            if (outcome.tool !== undefined) {
              const plugin = blockedBy(outcome.envelope.context.blocked_by)
              stillDenied.set(call.name, {
                rule: deniedBy(outcome.envelope.context.denied_by),
                unattended: outcome.envelope.context.unattended === true,
                ...(plugin !== undefined ? { plugin } : {}),
              })
            }
            const untrusted = untrustedRule(outcome.envelope.context.untrusted_rule)
            if (untrusted) untrustedRules.set(call.name, untrusted)
          } else if (outcome.envelope.status !== "error") stillDenied.delete(call.name)
          let text = outcome.envelope.text
          if (outcome.envelope.status === "error" && outcome.envelope.error?.code !== "CANCELLED") {
            const key = `${call.name.toLowerCase()} ${stableJson(params)}`
            const count = (failures.get(key) ?? 0) + 1
            failures.set(key, count)
            if (count === repeatLimit - 1) {
              text += `\n\nNote: this exact call has now failed ${count} times. Do not repeat it unchanged; change the parameters or the approach.`
            }
            if (count >= repeatLimit && repeated === undefined) repeated = `${call.name}(${call.arguments})`
          }
          const item: ToolItem = {
            type: "tool",
            call_id: call.id,
            name: call.name,
            text,
            metadata: { tool_raw_envelope: outcome.envelope, tool_execution_meta: outcome.meta },
          }
          for (const p of changedFiles(item)) changed.add(p)
          yield* append(item)
          yield* emit({ type: "tool_result", id: call.id, name: call.name, envelope: outcome.envelope, execution_meta: outcome.meta, elapsed_ms: elapsed })
          if (stop && !stopped) {
            stopped = stop
            yield* emit({ type: "hook_stopped", plugin: stop.plugin, reason: stop.reason })
          }
        }
      }
      // Calls never started stay unanswered; the history drops them when it is sent (toNativeMessages).
      if (cancelled) {
        return yield* finish("cancelled", "cancelled")
      }
      // A hook ended the turn: the model is not asked again (its reason went to the person, not the model).
      if (stopped) return yield* finish("success", "hook_stopped")
      if (repeated !== undefined) {
        return yield* finish("error", "repeated_failure", `The same failing call was made ${repeatLimit} times: ${repeated}. Stopped the turn.`)
      }
    }
  })
