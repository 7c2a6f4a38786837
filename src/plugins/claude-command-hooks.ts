import type { Hooks, SessionEvent, ToolAfterResult, ToolBeforeResult } from "./api.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import { claudeName, toAnvilInput } from "../tool-framework/claude-tools.ts"
import { answerProblemsLine, oncePerHook } from "./claude-answer-check.ts"
import { hookToolInput, hookToolResponse } from "./claude-hook-input.ts"
import { jsonDecision } from "./claude-hook-output.ts"
import type { CommandSpec, HookEvent } from "./claude-hook-specs.ts"
import { runCommandHook, type CommandHookOutcome } from "./command-hook.ts"
import { breakerOpened, hookBreaker } from "./hook-breaker.ts"

/**
 * Claude Code command hooks as anvil hooks: PreToolUse and PostToolUse commands become `tool.before` and
 * `tool.after`, SessionStart commands add what they print to the system prompt (`prompt.system`). Each command gets
 * the call on stdin as Claude Code sends it and answers by its exit code and JSON, as Claude Code's hooks reference
 * says. Used for a plugin folder's hooks, the settings files' and a skill's or an agent's front matter.
 */
export interface CommandHooksInput {
  /** Who the hooks belong to, as reports name it: `plugin 'lint'`, `skill 'deploy'`. */
  readonly owner: string
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Variables the commands get beside `env` (CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT, …). */
  readonly hookEnv: Readonly<Record<string, string>>
  readonly specs: Readonly<Record<HookEvent, ReadonlyArray<CommandSpec>>>
  /** Confines the commands (those that came with the repository run in the command sandbox). */
  readonly confine?: CommandConfinement
  /** Told of a command that failed (could not start, timed out, exited 1): the others of the event still run. */
  readonly onProblem?: (message: string) => void
  /** Called before each command starts (a plugin's data folder is made then). */
  readonly beforeRun?: () => void
  /** The session the hooks join when it has started already (a skill's hooks, added when it is invoked). */
  readonly session?: { readonly id: string; readonly transcript?: string }
  /** Whether a hook's `once: true` is acted on (Claude Code honours it only in front matter). */
  readonly honourOnce?: boolean
}

export const commandHooks = (input: CommandHooksInput): Hooks => {
  const { specs } = input
  // The session the calls belong to, as its start tells it (`anvil tool` has none: "cli", as its calls are filed).
  let session: { readonly id: string; readonly transcript?: string } = input.session ?? { id: "cli" }
  const sessionFields = () => ({ session_id: session.id, ...(session.transcript !== undefined ? { transcript_path: session.transcript } : {}), cwd: input.root })
  const opened = (event: SessionEvent) => {
    session = { id: event.sessionId, ...(event.transcriptPath !== undefined ? { transcript: event.transcriptPath } : {}) }
  }
  const hookEnv = input.hookEnv
  /** Runs one command with the call as Claude Code sends it on stdin. */
  const run = (
    spec: CommandSpec,
    event: "PreToolUse" | "PostToolUse",
    call: { readonly tool: string; readonly params: Readonly<Record<string, unknown>>; readonly callId: string },
    extra: Record<string, unknown> = {},
  ) => {
    const payload = {
      ...sessionFields(),
      hook_event_name: event,
      tool_name: claudeName(call.tool),
      tool_input: hookToolInput(call.tool, call.params, input.root),
      tool_use_id: call.callId,
      ...extra,
    }
    input.beforeRun?.()
    return runCommandHook({
      command: spec.command,
      cwd: input.root,
      env: { ...input.env, ...hookEnv },
      stdin: JSON.stringify(payload),
      timeoutMs: spec.timeoutMs,
      ...(input.confine ? { confine: input.confine } : {}),
    }).then((out) => {
      if (!out.timedOut) breaker.record(spec, false)
      if (out.exitCode === 0 && spec.once && input.honourOnce) spent.add(spec)
      return out
    })
  }
  // A command that keeps timing out is skipped without waiting for a while, as its time-out skips it (hook-breaker.ts).
  const breaker = hookBreaker<CommandSpec>()
  // `once: true` (a skill's or an agent's front matter): the command runs until it first succeeds, then no more.
  const spent = new Set<CommandSpec>()
  const selects = (spec: CommandSpec, tool: string) => !spent.has(spec) && (spec.selects(claudeName(tool)) || spec.selects(tool)) && breaker.allows(spec)
  // A command that fails is a non-blocking error (as in Claude Code): reported, and the event's other commands
  // still run — a later one may be the hook that blocks the call.
  const failed = (event: string, spec: CommandSpec, out: { exitCode: number; stderr: string; timedOut: boolean }) => {
    input.onProblem?.(
      `${input.owner}: ${event} hook '${spec.command}' ${out.exitCode === 124 ? "timed out" : out.exitCode === 127 ? "could not run" : `exited with ${out.exitCode}`}` +
        ` (${out.stderr.trim().slice(0, 500) || "no stderr"}); it was skipped and the other hooks ran`,
    )
    if (out.timedOut && breaker.record(spec, true)) input.onProblem?.(`${input.owner}: ${event} hook '${spec.command}' ${breakerOpened()}`)
  }

  // An answer anvil cannot wholly use is acted on as far as it can be, and what is left out reported: a hook that
  // misspelt its refusal must not pass for one that allowed the call.
  const unusable = oncePerHook<CommandSpec>(input.onProblem)
  const read = (event: string, spec: CommandSpec, out: CommandHookOutcome) => {
    const decision = jsonDecision(out.stdout, event, out.stdoutCut === true)
    if (decision?.problems) unusable(spec, `${input.owner}: ${event} hook '${spec.command}' ${answerProblemsLine(decision.problems)}`)
    // A `systemMessage` is the person's, as in Claude Code: told on the channel of the hooks' reports.
    if (decision?.message) input.onProblem?.(`${input.owner}: ${event} hook says: ${decision.message}`)
    return decision
  }

  const hooks: { -readonly [K in keyof Hooks]: Hooks[K] } = {}
  if (specs.PreToolUse.length > 0) {
    hooks["tool.before"] = async (event): Promise<ToolBeforeResult> => {
      // `updatedInput` (Claude Code's fields) replaces the input; later hooks see the new one.
      let params: Readonly<Record<string, unknown>> | undefined
      // The strictest word on the permission: "ask" over "allow" (a "deny" returns at once).
      let permission: { decision: "allow" | "ask"; reason?: string } | undefined
      for (const spec of specs.PreToolUse) {
        if (!selects(spec, event.tool)) continue
        const out = await run(spec, "PreToolUse", { tool: event.tool, params: params ?? event.params, callId: event.callId })
        if (out.exitCode === 2) return { deny: out.stderr.trim() || `PreToolUse hook '${spec.command}' blocked the call` }
        if (out.exitCode !== 0) {
          failed("PreToolUse", spec, out)
          continue
        }
        const decision = read("PreToolUse", spec, out)
        // `continue: false` outranks every other answer: the turn ends, and the call with it.
        if (decision?.stop !== undefined) return { stop: decision.stop || `PreToolUse hook '${spec.command}' said continue: false` }
        // Without a reason, the hook's message to the person (hookify's) says why better than nothing would.
        if (decision?.block) return { deny: decision.reason ?? decision.message ?? `PreToolUse hook '${spec.command}' blocked the call` }
        if (decision?.updatedInput) params = toAnvilInput(claudeName(event.tool), decision.updatedInput)
        if (decision?.permission && permission?.decision !== "ask") {
          permission = { decision: decision.permission, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) }
        }
      }
      if (!params && !permission) return undefined
      return {
        ...(params ? { params: { ...params } } : {}),
        ...(permission ? { permission: permission.decision, ...(permission.reason !== undefined ? { reason: permission.reason } : {}) } : {}),
      }
    }
  }
  if (specs.PostToolUse.length > 0) {
    hooks["tool.after"] = async (event): Promise<ToolAfterResult> => {
      const notes: Array<string> = []
      let stop: string | undefined
      for (const spec of specs.PostToolUse) {
        if (stop !== undefined) break
        if (!selects(spec, event.tool)) continue
        const out = await run(spec, "PostToolUse", event, { tool_response: hookToolResponse(event.tool, event.params, event.result, input.root) })
        if (out.exitCode === 2) notes.push(out.stderr.trim() || `PostToolUse hook '${spec.command}' objected to the result`)
        else if (out.exitCode !== 0) failed("PostToolUse", spec, out)
        else {
          const decision = read("PostToolUse", spec, out)
          // `continue: false`: the result stands and the turn ends after it; the later hooks do not run.
          if (decision?.stop !== undefined) stop = decision.stop || `PostToolUse hook '${spec.command}' said continue: false`
          else {
            if (decision?.block && decision.reason) notes.push(decision.reason)
            if (decision?.context) notes.push(decision.context)
          }
        }
      }
      const text = notes.length > 0 ? { text: `${event.result.text}\n\nPostToolUse hook feedback:\n${notes.join("\n")}` } : {}
      return stop !== undefined || notes.length > 0 ? { ...text, ...(stop !== undefined ? { stop } : {}) } : undefined
    }
  }

  if (specs.SessionStart.length > 0) {
    // SessionStart: what the commands print (plain text, or JSON's hookSpecificOutput.additionalContext) joins the
    // system prompt of the session, as Claude Code adds it to the context. The matcher is the start's source:
    // `startup`, or `resume` for a session that goes on from its file (--continue, --resume), as in Claude Code.
    hooks["prompt.system"] = async (event): Promise<string | undefined> => {
      opened(event)
      const source = event.source ?? "startup"
      const context: Array<string> = []
      for (const spec of specs.SessionStart) {
        if (!spec.selects(source)) continue
        input.beforeRun?.()
        const out = await runCommandHook({
          command: spec.command,
          cwd: input.root,
          env: { ...input.env, ...hookEnv },
          stdin: JSON.stringify({ ...sessionFields(), hook_event_name: "SessionStart", source }),
          timeoutMs: spec.timeoutMs,
          ...(input.confine ? { confine: input.confine } : {}),
        })
        if (out.exitCode !== 0) {
          failed("SessionStart", spec, out)
          continue
        }
        const text = read("SessionStart", spec, out)?.context ?? (out.stdout.trim().startsWith("{") ? "" : out.stdout.trim())
        if (text !== "") context.push(text)
      }
      return context.length > 0 ? context.join("\n\n") : undefined
    }
  }

  // The tool hooks learn the session from its start (SessionStart's hook learns it earlier, from the system prompt's).
  if (specs.PreToolUse.length > 0 || specs.PostToolUse.length > 0) hooks["session.start"] = opened
  return hooks
}
