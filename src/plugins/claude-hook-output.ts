import { Predicate } from "effect"

/**
 * What a hook's stdout JSON decides, when it is JSON: a block, a word on the permission ("allow", "ask";
 * the older `decision: "approve"` is "allow"), a new tool input (PreToolUse), context for the model, or
 * `continue: false` — the end of the turn, whatever else it says, with `stopReason` for the person alone.
 */
export const jsonDecision = (
  stdout: string,
): { block: boolean; permission?: "allow" | "ask"; reason?: string; updatedInput?: Record<string, unknown>; context?: string; stop?: string } | undefined => {
  const text = stdout.trim()
  if (!text.startsWith("{")) return undefined
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    const specific = Predicate.isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {}
    const reason =
      typeof specific.permissionDecisionReason === "string" ? specific.permissionDecisionReason : typeof json.reason === "string" ? json.reason : undefined
    const block = specific.permissionDecision === "deny" || json.decision === "block"
    const stop = json.continue === false ? (typeof json.stopReason === "string" && json.stopReason.trim() !== "" ? json.stopReason : "") : undefined
    const permission =
      specific.permissionDecision === "allow" || specific.permissionDecision === "ask"
        ? specific.permissionDecision
        : json.decision === "approve"
          ? "allow"
          : undefined
    return {
      block,
      ...(permission ? { permission } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(Predicate.isObject(specific.updatedInput) ? { updatedInput: specific.updatedInput as Record<string, unknown> } : {}),
      ...(typeof specific.additionalContext === "string" && specific.additionalContext.trim() !== "" ? { context: specific.additionalContext } : {}),
      ...(stop !== undefined ? { stop } : {}),
    }
  } catch {
    return undefined
  }
}
