import { describe, expect, test } from "bun:test"
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
    expect(jsonDecision("{not json")).toBeUndefined()
  })
})
