import { Deferred, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { AgentSetupError, type AgentSessionShape } from "../agent/agent-session.ts"
import type { OpenedSession } from "./session-lifecycle.ts"
import { makePartialStream } from "./partial-stream.ts"
import { turnWithoutSteps, type TurnResult } from "../agent/events.ts"
import { startFailureResult } from "../cli/claude-result.ts"
import { EXIT, exitCodeOf } from "../cli/exit-codes.ts"
import type { ExitSignal } from "../cli/signals.ts"
import { cancelTurn, interruptAfterResult, type HostState } from "./host-state.ts"
import type { HookVerdict } from "./sdk-hooks.ts"

/**
 * One user message of the SDK host as one turn: the program's UserPromptSubmit and Stop hooks around it, its
 * text streamed as partial messages when asked for, structured output asked for again until given, and the
 * result message that ends it.
 */

type Json = Record<string, unknown>

/** How many times a Stop hook's `decision: "block"` may send a turn back to the model. */
const STOP_HOOK_CONTINUATIONS = 8

export interface HostTurns {
  /** Runs the turn for one user message (opening the session first); never rejects. */
  readonly turn: (text: string) => Promise<void>
  /** Ends the running turn as the program's own decision (a hook's `continue: false`, with its reason). */
  readonly stopTurn: (why: string) => void
  /**
   * The session, opened now if no turn opened it yet (once, however many ask at the same time); the first turn
   * still announces it. Rejects when it cannot open; the next call tries again.
   */
  readonly ensureSession: () => Promise<AgentSessionShape>
}

/**
 * `open` opens the session (with `stopTurn` for its hooks); `signal` is the signal that ended the process, once
 * one did: no turn starts after it.
 */
export const makeHostTurns = (
  state: HostState,
  open: (stopTurn: (why: string) => void) => Promise<OpenedSession>,
  signal: () => ExitSignal | undefined,
): HostTurns => {
  const { flags, io } = state

  // --include-partial-messages: the model's thinking and text as they stream (partial-stream.ts).
  const partial = makePartialStream((event) => {
    if (!flags.includePartialMessages || !state.session) return
    state.line({ type: "stream_event", event, parent_tool_use_id: null, session_id: state.session.id, uuid: randomUUID() })
  })

  /** `continue: false` from a host hook during the running turn, with its reason. */
  let hookStop: string | undefined
  /** The running turn was ended because the model gave its structured answer. */
  let structuredStop = false
  const stopTurn = (why: string) => {
    hookStop ??= why
    cancelTurn(state)
  }

  /** One run of the model loop on `prompt`, cancellable by an interrupt, a signal or a host hook's `continue: false`. */
  const runOne = async (prompt: string): Promise<TurnResult> => {
    const cancel = (state.cancel = Effect.runSync(Deferred.make<void>()))
    const structured = state.structured
    try {
      return await state.session!.runTurn(prompt, {
        cancelled: Deferred.await(cancel),
        emit: (event) => {
          if (event.type === "error") io.err(`anvil: ${event.message}\n`)
          else if (event.type === "text_delta") partial.delta("text", event.text)
          else if (event.type === "thinking_delta") partial.delta("thinking", event.text)
          else {
            if (event.type === "assistant") {
              partial.end()
              state.lastUsage = event.usage
            }
            state.stream!.event(event)
            interruptAfterResult(state, event)
            // A valid structured answer ends the turn, as in Claude Code: the model is not asked again.
            if (event.type === "tool_result" && event.name === structured?.tool.name && structured.value() !== undefined && state.cancel) {
              structuredStop = true
              cancelTurn(state)
            }
          }
        },
      })
    } finally {
      state.cancel = undefined
      state.interruptAfter.clear()
    }
  }

  /** One run, sent back with a reminder while structured output is asked for and the model has not given it. */
  const runAnswered = async (prompt: string): Promise<TurnResult> => {
    const structured = state.structured
    structured?.reset()
    let result = await runOne(prompt)
    if (!structured) return result
    for (let retry = 0; structured.value() === undefined && retry < structured.retries; retry++) {
      if (["cancelled", "model_error", "prompt_too_long", "max_steps"].includes(result.reason) || signal() !== undefined) break
      result = await runOne(structured.reminder)
    }
    return result
  }

  /**
   * A host hook around the turn (UserPromptSubmit, Stop), withdrawn when the turn is interrupted while it is awaited;
   * undefined then.
   */
  const aroundTurn = async (event: string, input: Json): Promise<HookVerdict | undefined> => {
    const interrupted = (state.hooksAbort = new AbortController())
    try {
      const verdict = await state.hooks!.call(event, input, undefined, undefined, interrupted.signal)
      return interrupted.signal.aborted ? undefined : verdict
    } finally {
      state.hooksAbort = undefined
    }
  }

  let opening: Promise<OpenedSession> | undefined
  let announced = false
  const opened = (): Promise<OpenedSession> =>
    (opening ??= open(stopTurn).then(
      (o) => ((state.session = o.session), o),
      (e: unknown) => {
        opening = undefined
        throw e
      },
    ))

  const turn = async (text: string): Promise<void> => {
    if (signal() !== undefined) return
    try {
      const { announce } = await opened()
      if (!announced) {
        announced = true
        await announce()
      }
    } catch (e) {
      const message = e instanceof AgentSetupError ? e.message : (e as Error).message ?? String(e)
      // The session asked for keeps its id in the result; a fork would have had a new one.
      state.line(startFailureResult(message, EXIT.config, "config", state.flags.forkSession ? undefined : state.flags.resume))
      io.err(`anvil: ${message}\n`)
      state.exitCode = EXIT.config
      return
    }
    const { hooks, structured } = state
    const stream = state.stream!
    let prompt = text
    hookStop = undefined
    if (hooks?.has("UserPromptSubmit")) {
      const verdict = await aroundTurn("UserPromptSubmit", { prompt: text })
      if (verdict === undefined) {
        stream.result(turnWithoutSteps("cancelled", "cancelled"), signal())
        return
      }
      if (verdict.decision === "deny" || verdict.stop !== undefined) {
        const blocked = turnWithoutSteps("error", "permission_denied", verdict.reason ?? verdict.stop ?? "The host's UserPromptSubmit hook blocked the prompt.")
        stream.result(blocked)
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
      const verdict = await aroundTurn("Stop", { stop_hook_active: again > 0, last_assistant_message: result.answer })
      if (verdict === undefined || verdict.decision !== "deny" || hookStop !== undefined || result.reason === "cancelled" || signal() !== undefined) break
      if (again >= STOP_HOOK_CONTINUATIONS) {
        state.onProblem(`the host's Stop hook blocked the end of the turn ${again} times; the turn ends here`)
        break
      }
      result = await runAnswered(verdict.reason ?? "The host's Stop hook asked you to go on.")
    }
    const stopped = hookStop
    hookStop = undefined
    // A set_model during the turn made the stream again: the result is written with the one in use now.
    const out = state.stream!
    const answer = structured?.value()
    if (structured && answer !== undefined && (result.reason === "completed" || (structuredStop && result.reason === "cancelled"))) {
      out.result({ ...result, status: "success", reason: "completed" }, undefined, { structured_output: answer.data, ...(structuredStop ? { stop_reason: "tool_use" } : {}) })
    } else if (structured && answer === undefined && ["completed", "empty_answer", "repeated_failure"].includes(result.reason) && signal() === undefined) {
      out.result({ ...result, status: "error", reason: "empty_answer", error: structured.failure }, undefined, { subtype: "error_max_structured_output_retries", is_error: true })
    } else if (stopped !== undefined && result.reason === "cancelled") {
      // `continue: false` from a host hook is the program's own decision to end the turn, not a failure.
      out.system("hook_stopped", { message: stopped })
      out.result({ ...result, status: "success", reason: "completed" }, undefined, { terminal_reason: "hook_stopped", stop_reason: null })
    } else out.result(result, signal())
    // Each result says how its turn went; the process itself fails only when a session could not start or a signal ended it
    // (the SDK treats a non-zero exit as the whole query failing).
    const ended = signal()
    if (ended !== undefined) state.exitCode = exitCodeOf(result, ended)
  }

  return { turn, stopTurn, ensureSession: () => opened().then((o) => o.session) }
}
