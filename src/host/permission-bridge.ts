import { Effect } from "effect"
import { planRefusal, PROFILES } from "../agent/profiles.ts"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import { rulesCover, type AllowRule } from "../permission/allow-rule.ts"
import type { HookEntry } from "../plugins/hook-runner.ts"
import { isRecord } from "../protocol/is-record.ts"
import { callParams, claudeName, toClaudeInput } from "../tool-framework/claude-tools.ts"
import { cancelTurn, type HostState } from "./host-state.ts"
import { claudeRule, PERMISSION_MODES, splitToolList, type PermissionMode } from "./print-flags.ts"

/**
 * Permissions between anvil and the program: the permission mode decides first, then the program's
 * `canUseTool` (a `can_use_tool` request) or, without one, a denial; the program's `disallowedTools` are deny
 * rules; the plan mode set during a session refuses what the plan profile leaves out.
 */

type Json = Record<string, unknown>

/** Tools that only change files: approved without asking in `acceptEdits` mode. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "multiedit", "patch"])

/** anvil.json `permission` rules for `--disallowedTools`: deny always wins. */
export const denyRules = (disallowed: ReadonlyArray<AllowRule>): Json => {
  const permission: Record<string, Json | string> = {}
  for (const rule of disallowed) {
    if (rule.pattern === undefined) permission[rule.tool] = "deny"
    else {
      const entry = permission[rule.tool]
      if (entry !== "deny") permission[rule.tool] = { ...(isRecord(entry) ? entry : {}), [rule.pattern]: "deny" }
    }
  }
  return permission
}

export interface PermissionBridge {
  /** Who answers an "ask" here (the session's `onAsk`). */
  readonly ask: (request: PermissionRequest) => Effect.Effect<AskAnswer>
  /** The hook that refuses, in plan mode, every call outside the plan profile's tools. */
  readonly planGuard: HookEntry
  /** The program's `disallowedTools` (the flag's and `initialize`'s) as rules. */
  readonly disallowed: () => Array<AllowRule>
}

export const makePermissionBridge = (state: HostState): PermissionBridge => {
  /** Rules the host approved for the rest of the session (`updatedPermissions` with `addRules`). */
  const sessionRules: Array<AllowRule> = []
  /** What the host may send back to approve such calls for the session: one rule per subject (command, path), or the tool. */
  const suggestions = (request: PermissionRequest, name: string) => [
    {
      type: "addRules",
      rules: request.subjects && request.subjects.values.length > 0 ? request.subjects.values.map((v) => ({ toolName: name, ruleContent: v })) : [{ toolName: name }],
      behavior: "allow",
      destination: "session",
    },
  ]
  /** A host's `updatedPermissions`: allow rules join the session's, `setMode` changes the mode; the rest is not kept. */
  const applyUpdates = (updates: unknown) => {
    if (!Array.isArray(updates)) return
    for (const u of updates.filter(isRecord)) {
      if (u.type === "setMode" && PERMISSION_MODES.includes(u.mode as PermissionMode)) state.mode = u.mode as PermissionMode
      if (u.type !== "addRules" || u.behavior !== "allow" || !Array.isArray(u.rules)) continue
      for (const r of u.rules.filter(isRecord)) {
        if (typeof r.toolName !== "string") continue
        const rule = claudeRule(typeof r.ruleContent === "string" && r.ruleContent !== "" ? `${r.toolName}(${r.ruleContent})` : r.toolName)
        if (rule) sessionRules.push(rule)
      }
    }
  }

  /** Who answers an "ask" here: the mode first, then the host (can_use_tool) or, without one, a denial. */
  const ask = (request: PermissionRequest): Effect.Effect<AskAnswer> =>
    // The signal aborts when the turn is interrupted while the host is being asked: the request is withdrawn.
    Effect.promise(async (signal): Promise<AskAnswer> => {
      const name = claudeName(request.tool.name)
      const params = isRecord(request.params) ? request.params : {}
      const mode = state.mode
      if (mode === "bypassPermissions") return "once"
      // A command leaving the sandbox is asked about every time, as anvil's own "always" answers count once there.
      if (!request.unconfined && rulesCover(sessionRules, request.tool.name, request.subjects)) return "once"
      if (mode === "acceptEdits" && EDIT_TOOLS.has(request.tool.name)) return "once"
      if (mode === "dontAsk") return { deny: `Permission mode dontAsk: the ${name} call was not pre-approved, so it was denied.` }
      if (mode === "plan" && request.tool.readOnly !== true) return { deny: planRefusal(name) }
      if (!state.flags.promptToolStdio) {
        return { deny: `The ${name} call needs approval and the host program takes no permission requests (--permission-prompt-tool stdio).` }
      }
      try {
        const answer = await state.channel.request({
          subtype: "can_use_tool",
          tool_name: name,
          input: toClaudeInput(request.tool.name, params),
          permission_suggestions: suggestions(request, name),
          tool_use_id: request.callId ?? "",
        }, { signal })
        if (answer.behavior === "allow") {
          applyUpdates(answer.updatedPermissions)
          const updated = isRecord(answer.updatedInput) && Object.keys(answer.updatedInput).length > 0 ? answer.updatedInput : undefined
          if (!updated) return "once"
          return { params: callParams(name, request.tool.name, updated) }
        }
        const message = typeof answer.message === "string" && answer.message !== "" ? answer.message : `The host denied the ${name} call.`
        if (answer.interrupt === true) {
          if (request.callId !== undefined) state.interruptAfter.add(request.callId)
          else cancelTurn(state)
        }
        return { deny: message }
      } catch (e) {
        return { deny: `The host did not answer the permission request for ${name}: ${(e as { message?: string }).message ?? String(e)}` }
      }
    })

  /**
   * set_permission_mode "plan" in a session opened in another mode: every call outside the plan profile's tools is
   * refused before anything else, also one a rule or the sandbox would have let through without asking.
   */
  const planGuard = {
    plugin: "plan permission mode",
    name: "tool.before",
    fn: (event: { readonly tool: string }) => {
      if (state.mode !== "plan") return undefined
      const tool = state.session?.tools.find((t) => t.name === event.tool)
      return tool && PROFILES.plan.select([tool]).length === 0 ? { deny: planRefusal(claudeName(tool.name)) } : undefined
    },
  } as HookEntry

  // What a program delivers in `initialize` instead of on the command line (the SDK's *Delivery: "initialize").
  const disallowed = (): Array<AllowRule> => [
    ...state.flags.disallowed,
    ...(Array.isArray(state.initialize.disallowedTools)
      ? state.initialize.disallowedTools.flatMap((t) => (typeof t === "string" ? splitToolList(t) : [])).flatMap((t) => claudeRule(t) ?? [])
      : []),
  ]

  return { ask, planGuard, disallowed }
}
