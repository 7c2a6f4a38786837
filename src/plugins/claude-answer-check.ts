import { isRecord } from "../protocol/is-record.ts"

/**
 * What is wrong with a Claude Code hook's JSON answer: each problem a phrase naming the field, what it holds and what
 * it may hold. anvil acts on the rest and ignores what is named, as Claude Code goes on after an answer that fails its
 * check; but a hook that wrote `"permissionDecision": "block"`, or put it beside `hookSpecificOutput` instead of in
 * it, meant to refuse the call, and must hear that it did not.
 */

/** The `hookSpecificOutput` fields anvil reads, per event (Claude Code's hooks reference). */
const SPECIFIC: Record<string, ReadonlyArray<string>> = {
  PreToolUse: ["permissionDecision", "permissionDecisionReason", "updatedInput"],
  PostToolUse: ["additionalContext"],
  UserPromptSubmit: ["additionalContext"],
  SessionStart: ["additionalContext"],
}

/** Fields Claude Code reads that anvil does not act on: named so, not as mistakes. */
const NOT_ACTED_ON: Record<string, string> = {
  "PreToolUse.additionalContext": "anvil adds a hook's context to a result only after the call (PostToolUse)",
  "PostToolUse.updatedToolOutput": "anvil does not replace a tool's result from a Claude Code hook",
  "PostToolUse.updatedMCPToolOutput": "anvil does not replace a tool's result from a Claude Code hook",
}

/** The `hookSpecificOutput` fields some event reads: given at the top level, they were meant to go inside. */
const INSIDE_ONLY = ["permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext", "hookEventName"]

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

const typed = (json: Record<string, unknown>, key: string, kind: "string" | "boolean" | "object", at = key): Array<string> =>
  json[key] === undefined || (kind === "object" ? isRecord(json[key]) : typeof json[key] === kind)
    ? []
    : [`${at} is ${shown(json[key])}, not ${kind === "object" ? "an object" : `a ${kind === "boolean" ? "true or false" : "text"}`}`]

export const claudeAnswerProblems = (event: string, json: Record<string, unknown>): Array<string> => {
  const problems: Array<string> = [
    ...typed(json, "continue", "boolean"),
    ...typed(json, "suppressOutput", "boolean"),
    ...typed(json, "stopReason", "string"),
    ...typed(json, "reason", "string"),
    ...typed(json, "systemMessage", "string"),
    ...typed(json, "hookSpecificOutput", "object"),
  ]
  if (json.decision !== undefined && json.decision !== "approve" && json.decision !== "block") {
    problems.push(`decision is ${shown(json.decision)}, not "approve" or "block"`)
  }
  for (const key of INSIDE_ONLY) {
    if (json[key] !== undefined) problems.push(`${key} is read only inside hookSpecificOutput ({"hookSpecificOutput": {"${key}": …}}), not at the top level`)
  }
  if (!isRecord(json.hookSpecificOutput)) return problems
  const specific = json.hookSpecificOutput
  const at = (key: string) => `hookSpecificOutput.${key}`
  if (specific.hookEventName !== undefined && specific.hookEventName !== event) {
    problems.push(`${at("hookEventName")} is ${shown(specific.hookEventName)}, but this is a ${event} hook`)
  }
  const reads = SPECIFIC[event] ?? []
  for (const key of Object.keys(specific)) {
    if (key === "hookEventName") continue
    const skipped = NOT_ACTED_ON[`${event}.${key}`]
    if (skipped !== undefined) problems.push(`${at(key)} is not acted on: ${skipped}`)
    else if (!reads.includes(key) && Object.values(SPECIFIC).some((keys) => keys.includes(key))) {
      problems.push(`${at(key)} is read only from ${Object.keys(SPECIFIC).filter((e) => SPECIFIC[e]!.includes(key)).join(" and ")} hooks, not ${event}`)
    }
  }
  const decision = specific.permissionDecision
  if (reads.includes("permissionDecision") && decision !== undefined && decision !== "allow" && decision !== "deny" && decision !== "ask") {
    problems.push(
      decision === "defer"
        ? `${at("permissionDecision")} "defer" is not acted on by anvil: the call goes on as if the hook said nothing`
        : `${at("permissionDecision")} is ${shown(decision)}, not "allow", "deny" or "ask"`,
    )
  }
  if (reads.includes("permissionDecisionReason")) problems.push(...typed(specific, "permissionDecisionReason", "string", at("permissionDecisionReason")))
  if (reads.includes("updatedInput")) problems.push(...typed(specific, "updatedInput", "object", at("updatedInput")))
  if (reads.includes("additionalContext")) problems.push(...typed(specific, "additionalContext", "string", at("additionalContext")))
  return problems
}

/** The one line a report adds after the hook it names. */
export const answerProblemsLine = (problems: ReadonlyArray<string>) =>
  `answered JSON with ${problems.length === 1 ? "a part" : "parts"} anvil cannot use, ignored: ${problems.join("; ")}`

/**
 * Reports a hook's unusable answers once per hook for the run (the first report, with what is wrong): a hook
 * answers alike at every call, and a report per call buries everything else. The hook still runs each time and
 * what it answers that is usable is still acted on.
 */
export const oncePerHook = <K>(report: ((line: string) => void) | undefined) => {
  const told = new Set<K>()
  return (hook: K, line: string): void => {
    if (told.has(hook)) return
    told.add(hook)
    report?.(line)
  }
}
