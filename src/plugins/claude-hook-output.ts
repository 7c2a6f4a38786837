import { Predicate } from "effect"

/**
 * What a hook's stdout JSON decides, when it is JSON: a block, a word on the permission ("allow", "ask";
 * the older `decision: "approve"` is "allow"), a new tool input (PreToolUse), context for the model.
 */
export const jsonDecision = (
  stdout: string,
): { block: boolean; permission?: "allow" | "ask"; reason?: string; updatedInput?: Record<string, unknown>; context?: string } | undefined => {
  const text = stdout.trim()
  if (!text.startsWith("{")) return undefined
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    const specific = Predicate.isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {}
    const reason =
      typeof specific.permissionDecisionReason === "string"
        ? specific.permissionDecisionReason
        : typeof json.reason === "string"
          ? json.reason
          : // `continue: false` gives its reason as `stopReason`.
            typeof json.stopReason === "string"
            ? json.stopReason
            : undefined
    const block = specific.permissionDecision === "deny" || json.decision === "block" || json.continue === false
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
    }
  } catch {
    return undefined
  }
}
