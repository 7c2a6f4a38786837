import type { ToolAfterResult, ToolBeforeResult, ToolCallEvent, ToolResultEvent } from "../plugins/api.ts"
import type { HookEntry } from "../plugins/hook-runner.ts"
import { claudeName, toAnvilInput } from "../tool-framework/claude-tools.ts"
import { hookToolInput, hookToolResponse } from "../plugins/claude-hook-input.ts"
import type { ControlChannel } from "./control-channel.ts"
import { isRecord } from "../protocol/is-record.ts"
import { compileMatcher } from "../plugins/hook-matcher.ts"
import { answerProblemsLine, claudeAnswerProblems, oncePerHook } from "../plugins/claude-answer-check.ts"

/**
 * The host program's hooks (registered in `initialize`, called back with
 * `hook_callback`), in Claude Code's shapes: PreToolUse and PostToolUse ride
 * on anvil's `tool.before` / `tool.after` hooks, so they run where a plugin's
 * would (before the permission check, after the full result); the others are
 * called by the host command around turns and the session.
 */

type Json = Record<string, unknown>

/** A host hook may wait for a person; Claude Code gives its hooks minutes, not seconds. */
const HOST_HOOK_TIMEOUT_MS = 600_000

/** One matcher of `initialize.hooks[event]`. */
interface Matcher {
  readonly matcher?: string
  /** The matcher compiled; one that is not a valid regular expression selects nothing (see `invalid`). */
  readonly selects: (name: string) => boolean
  /** Why the matcher is not a valid regular expression. */
  readonly problem?: string
  readonly hookCallbackIds: ReadonlyArray<string>
  readonly timeout?: number
  /** `block`: a callback that fails blocks what the event guards (the tool call, the prompt); `continue` (default) skips it. */
  readonly onFailure?: "continue" | "block"
}


/** What the hooks of one event said, merged in order. */
export interface HookVerdict {
  /** `permissionDecision` or `decision` (approve → allow, block → deny). */
  readonly decision?: "allow" | "deny" | "ask"
  readonly reason?: string
  readonly updatedInput?: Json
  readonly additionalContext: ReadonlyArray<string>
  /** `continue: false`: stop the turn. */
  readonly stop?: string
  readonly systemMessages: ReadonlyArray<string>
}

export interface SdkHooks {
  readonly has: (event: string) => boolean
  /**
   * Calls every callback registered for `event` whose matcher fits `toolName`, and merges their outputs. When `signal`
   * aborts (the turn was interrupted) the callback waited for is withdrawn and the rest are not called.
   */
  readonly call: (event: string, input: Json, toolName?: string, toolUseId?: string, signal?: AbortSignal) => Promise<HookVerdict>
  /** anvil hook entries for PreToolUse / PostToolUse. */
  readonly entries: ReadonlyArray<HookEntry>
  /** Events the host registered callbacks for that anvil never calls (reported once, not dropped silently). */
  readonly uncalled: ReadonlyArray<string>
  /** Matchers that are not valid regular expressions, each with what it means for its hooks (reported once). */
  readonly invalid: ReadonlyArray<string>
}

/** The events anvil calls the host's hooks for. */
const CALLED = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd"])

/** Events whose action a failing `onFailure: "block"` hook blocks (Claude Code ignores the option on Stop and the like). */
const BLOCKABLE = new Set(["PreToolUse", "UserPromptSubmit", "PermissionRequest"])

/** A matcher as registered: compiled once, with why it is invalid (it then selects nothing, as in Claude Code). */
const compiled = (matcher: string | undefined): Pick<Matcher, "selects" | "problem"> => {
  if (matcher === undefined) return { selects: () => true }
  const made = compileMatcher(matcher)
  return "selects" in made ? { selects: made.selects } : { selects: () => false, problem: made.problem }
}

/** What an invalid matcher means: its hooks never run, or, blocking on failure, what the event guards is refused. */
const invalidNote = (event: string, m: Matcher): string =>
  `the host's ${event} hook matcher ${JSON.stringify(m.matcher)} is not a valid regular expression (${m.problem}), so ` +
  (m.onFailure === "block" && BLOCKABLE.has(event)
    ? `its hooks cannot run and, as they block on failure, every ${event === "PreToolUse" ? "tool call" : "prompt"} is refused; fix the matcher`
    : `its ${m.hookCallbackIds.length === 1 ? "hook never runs" : `${m.hookCallbackIds.length} hooks never run`}; fix the matcher`)

export const makeSdkHooks = (
  config: unknown,
  channel: ControlChannel,
  base: () => { readonly session_id: string; readonly cwd: string; readonly transcript_path: string; readonly permission_mode: string },
  onProblem: (message: string) => void,
  /** A hook said `continue: false`: called at once, so the host ends the turn before the model is asked again. */
  onStop: (why: string) => void,
  /** The project root the tools' relative paths start from (hooks get them absolute, as Claude Code sends them). */
  root: () => string = () => base().cwd,
): SdkHooks => {
  const table = new Map<string, ReadonlyArray<Matcher>>()
  // A callback's unusable answers are reported once per event and callback for the session.
  const unusable = oncePerHook<string>(onProblem)
  if (isRecord(config)) {
    for (const [event, list] of Object.entries(config)) {
      if (!Array.isArray(list)) continue
      table.set(
        event,
        list.filter(isRecord).map((m) => ({
          ...(typeof m.matcher === "string" ? { matcher: m.matcher } : {}),
          ...compiled(typeof m.matcher === "string" ? m.matcher : undefined),
          hookCallbackIds: Array.isArray(m.hookCallbackIds) ? m.hookCallbackIds.filter((x): x is string => typeof x === "string") : [],
          ...(typeof m.timeout === "number" ? { timeout: m.timeout } : {}),
          ...(m.onFailure === "block" ? { onFailure: "block" as const } : {}),
        })),
      )
    }
  }

  const call: SdkHooks["call"] = async (event, input, toolName, toolUseId, signal) => {
    const verdict: { decision?: "allow" | "deny" | "ask"; reason?: string; updatedInput?: Json; additionalContext: Array<string>; stop?: string; systemMessages: Array<string> } = {
      additionalContext: [],
      systemMessages: [],
    }
    for (const m of table.get(event) ?? []) {
      // A matcher that cannot be read guards nothing: where its hooks block on failure, that failure blocks.
      if (m.problem !== undefined && m.onFailure === "block" && BLOCKABLE.has(event) && m.hookCallbackIds.length > 0) {
        verdict.decision = "deny"
        verdict.reason = `The host's ${event} hook could not run: its matcher ${JSON.stringify(m.matcher)} is not a valid regular expression (${m.problem}), and it blocks what it guards when it fails.`
        continue
      }
      if (toolName !== undefined && !m.selects(toolName)) continue
      if (toolName === undefined && m.problem !== undefined) continue
      for (const id of m.hookCallbackIds) {
        if (signal?.aborted) return verdict
        let out: Json
        try {
          out = await channel.request(
            {
              subtype: "hook_callback",
              callback_id: id,
              input: { ...base(), hook_event_name: event, ...input },
              ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
            },
            // The matcher's `timeout` (seconds), else the host's general limit: a callback that never answers is skipped.
            { timeoutMs: m.timeout !== undefined && m.timeout > 0 ? m.timeout * 1000 : HOST_HOOK_TIMEOUT_MS, ...(signal ? { signal } : {}) },
          )
        } catch (e) {
          if (signal?.aborted) return verdict
          const why = (e as { message?: string }).message ?? String(e)
          if (m.onFailure === "block" && BLOCKABLE.has(event)) {
            onProblem(`host hook ${event} (${id}) failed; its matcher blocks on failure: ${why}`)
            verdict.decision = "deny"
            verdict.reason = `The host's ${event} hook failed (${why}), and it blocks what it guards when it fails.`
          } else onProblem(`host hook ${event} (${id}) failed and was skipped: ${why}`)
          continue
        }
        // What anvil cannot use of the answer is reported (a misspelt refusal must not pass silently for no word).
        const problems = claudeAnswerProblems(event, isRecord(out) ? out : {})
        if (problems.length > 0) unusable(`${event}\u0000${id}`, `host hook ${event} (${id}) ${answerProblemsLine(problems)}`)
        const specific = isRecord(out.hookSpecificOutput) ? out.hookSpecificOutput : {}
        const decision =
          event === "PreToolUse" && (specific.permissionDecision === "allow" || specific.permissionDecision === "deny" || specific.permissionDecision === "ask")
            ? specific.permissionDecision
            : out.decision === "block"
              ? "deny"
              : out.decision === "approve"
                ? "allow"
                : undefined
        // The strictest decision wins: deny over ask over allow.
        const rank = { allow: 0, ask: 1, deny: 2 } as const
        if (decision !== undefined && (verdict.decision === undefined || rank[decision] > rank[verdict.decision])) {
          verdict.decision = decision
          const why = specific.permissionDecisionReason ?? out.reason
          if (typeof why === "string") verdict.reason = why
        }
        if (isRecord(specific.updatedInput)) verdict.updatedInput = specific.updatedInput
        if (typeof specific.additionalContext === "string" && specific.additionalContext !== "") verdict.additionalContext.push(specific.additionalContext)
        if (typeof out.systemMessage === "string") verdict.systemMessages.push(out.systemMessage)
        if (out.continue === false) verdict.stop = typeof out.stopReason === "string" ? out.stopReason : `stopped by the host's ${event} hook`
      }
    }
    if (verdict.stop !== undefined) onStop(verdict.stop)
    return verdict
  }

  const before = async (event: ToolCallEvent): Promise<ToolBeforeResult> => {
    const name = claudeName(event.tool)
    const verdict = await call("PreToolUse", { tool_name: name, tool_input: hookToolInput(event.tool, event.params, root()), tool_use_id: event.callId }, name, event.callId)
    if (verdict.stop !== undefined) return { deny: verdict.stop }
    if (verdict.decision === "deny") return { deny: verdict.reason ?? `The host's PreToolUse hook denied this ${name} call.` }
    const permission = verdict.decision === "allow" || verdict.decision === "ask" ? verdict.decision : undefined
    if (!verdict.updatedInput && !permission) return undefined
    return {
      ...(verdict.updatedInput ? { params: toAnvilInput(name, verdict.updatedInput) } : {}),
      ...(permission ? { permission, ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}) } : {}),
    }
  }

  const after = async (event: ToolResultEvent): Promise<ToolAfterResult> => {
    const name = claudeName(event.tool)
    const verdict = await call(
      "PostToolUse",
      {
        tool_name: name,
        tool_input: hookToolInput(event.tool, event.params, root()),
        // anvil's data fields stay at the top, as programs written for anvil read them; Claude Code's over them.
        tool_response: { ...event.result.data, ...hookToolResponse(event.tool, event.params, event.result, root()) },
        tool_use_id: event.callId,
      },
      name,
      event.callId,
    )
    const extra = [...(verdict.decision === "deny" && verdict.reason ? [verdict.reason] : []), ...verdict.additionalContext]
    return extra.length > 0 ? { text: `${event.result.text}\n\n${extra.join("\n\n")}` } : undefined
  }

  const entries: Array<HookEntry> = []
  if (table.has("PreToolUse")) entries.push({ plugin: "agent-sdk host", name: "tool.before", fn: before, timeoutMs: HOST_HOOK_TIMEOUT_MS } as HookEntry)
  if (table.has("PostToolUse")) entries.push({ plugin: "agent-sdk host", name: "tool.after", fn: after, timeoutMs: HOST_HOOK_TIMEOUT_MS } as HookEntry)
  return {
    has: (event) => (table.get(event)?.length ?? 0) > 0,
    call,
    entries,
    uncalled: [...table.keys()].filter((event) => !CALLED.has(event) && (table.get(event)?.length ?? 0) > 0),
    invalid: [...table].flatMap(([event, list]) => (CALLED.has(event) ? list.filter((m) => m.problem !== undefined && m.hookCallbackIds.length > 0).map((m) => invalidNote(event, m)) : [])),
  }
}
