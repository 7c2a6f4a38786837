import { Predicate } from "effect"
import { claudeAnswerProblems } from "./claude-answer-check.ts"
import { STDOUT_LIMIT } from "./command-hook.ts"

/**
 * What a hook's stdout JSON decides, when it is JSON: a block, a word on the permission ("allow", "ask";
 * the older `decision: "approve"` is "allow"), a new tool input (PreToolUse), context for the model, or
 * `continue: false` — the end of the turn, whatever else it says, with `stopReason` for the person alone — and a
 * `systemMessage` for the person. What it
 * holds that anvil cannot use, and output that starts as JSON but does not parse, come back as `problems` to report.
 */
export const jsonDecision = (
  stdout: string,
  event = "PreToolUse",
  /** The output went past what anvil keeps (command-hook.ts STDOUT_LIMIT): only its beginning is in `stdout`. */
  cut = false,
):
  | { block: boolean; permission?: "allow" | "ask"; reason?: string; updatedInput?: Record<string, unknown>; context?: string; stop?: string; message?: string; problems?: Array<string> }
  | undefined => {
  const text = stdout.trim()
  if (!text.startsWith("{")) return undefined
  if (cut) return { block: false, problems: [`its output starts with "{" but goes on past ${STDOUT_LIMIT / 1024 / 1024} MiB, more than anvil reads of an answer, so none of it was read`] }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    return { block: false, problems: [`its output starts with "{" but is not valid JSON (${why}), so none of it was read`] }
  }
  // Text that starts with '{' and parses is an object.
  const json = parsed as Record<string, unknown>
  const problems = claudeAnswerProblems(event, json)
  const specific = Predicate.isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {}
  const reason =
    typeof specific.permissionDecisionReason === "string" ? specific.permissionDecisionReason : typeof json.reason === "string" ? json.reason : undefined
  // permissionDecision is PreToolUse's (elsewhere it is reported, not acted on); `decision: "block"` is every event's.
  const decides = event === "PreToolUse"
  const block = (decides && specific.permissionDecision === "deny") || json.decision === "block"
  const stop = json.continue === false ? (typeof json.stopReason === "string" && json.stopReason.trim() !== "" ? json.stopReason : "") : undefined
  const permission =
    decides && (specific.permissionDecision === "allow" || specific.permissionDecision === "ask")
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
    // `systemMessage`: Claude Code shows it to the person (hookify explains its refusals there).
    ...(typeof json.systemMessage === "string" && json.systemMessage.trim() !== "" ? { message: json.systemMessage.trim() } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  }
}
