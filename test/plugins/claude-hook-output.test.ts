import { describe, expect, test } from "bun:test"
import { claudeAnswerProblems } from "../../src/plugins/claude-answer-check.ts"
import { jsonDecision } from "../../src/plugins/claude-hook-output.ts"

describe("a Claude Code hook's JSON answer", () => {
  test("continue: false is a stop with its stopReason (the person's, not the model's reason), beside the rest; plain text is no decision", () => {
    expect(jsonDecision('{"continue": false, "stopReason": "halt everything"}')).toEqual({ block: false, stop: "halt everything" })
    expect(jsonDecision('{"continue": false}')).toEqual({ block: false, stop: "" })
    expect(
      jsonDecision('{"continue": false, "stopReason": "s", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no .env"}}'),
    ).toEqual({ block: true, reason: "no .env", stop: "s" })
    expect(jsonDecision('{"decision": "approve"}')).toEqual({ block: false, permission: "allow" })
    expect(jsonDecision("all good")).toBeUndefined()
  })

  test("what anvil cannot use is named, field by field, beside what it acts on: a refusal misspelt or misplaced is never silent", () => {
    expect(jsonDecision("{not json")).toEqual({ block: false, problems: [expect.stringMatching(/^its output starts with "\{" but is not valid JSON \(.+\), so none of it was read$/)] })
    expect(jsonDecision('{"hookSpecificOutput": {"permissionDecision": "block", "updatedInput": "x"}}')).toEqual({
      block: false,
      problems: ['hookSpecificOutput.permissionDecision is "block", not "allow", "deny" or "ask"', 'hookSpecificOutput.updatedInput is "x", not an object'],
    })
    // The flat form (as some hooks write it) decides nothing, in Claude Code as here: said so, with where it goes.
    expect(jsonDecision('{"permissionDecision": "deny", "decision": "deny", "continue": "no"}')?.problems).toEqual([
      'continue is "no", not a true or false',
      'decision is "deny", not "approve" or "block"',
      'permissionDecision is read only inside hookSpecificOutput ({"hookSpecificOutput": {"permissionDecision": …}}), not at the top level',
    ])
    // A field of another event, one anvil does not act on, and "defer" are named as such; a valid answer has no problems.
    expect(claudeAnswerProblems("PostToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", updatedToolOutput: "x" } })).toEqual([
      'hookSpecificOutput.hookEventName is "PreToolUse", but this is a PostToolUse hook',
      "hookSpecificOutput.permissionDecision is read only from PreToolUse hooks, not PostToolUse",
      "hookSpecificOutput.updatedToolOutput is not acted on: anvil does not replace a tool's result from a Claude Code hook",
    ])
    expect(jsonDecision('{"hookSpecificOutput": {"permissionDecision": "deny"}}', "PostToolUse")?.block).toBe(false)
    expect(claudeAnswerProblems("PreToolUse", { hookSpecificOutput: { permissionDecision: "defer", additionalContext: "c" } })).toEqual([
      "hookSpecificOutput.additionalContext is not acted on: anvil adds a hook's context to a result only after the call (PostToolUse)",
      'hookSpecificOutput.permissionDecision "defer" is not acted on by anvil: the call goes on as if the hook said nothing',
    ])
    const valid = { continue: true, suppressOutput: false, systemMessage: "m", decision: "approve", reason: "r" }
    expect(claudeAnswerProblems("PreToolUse", { ...valid, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "why", updatedInput: {} } })).toEqual([])
    expect(claudeAnswerProblems("SessionStart", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "ctx", sessionTitle: "t" } })).toEqual([])
  })
})
