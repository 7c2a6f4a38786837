import { describe, expect, test } from "bun:test"
import { jsonDecision } from "../../src/plugins/claude-hook-output.ts"

describe("a Claude Code hook's JSON answer", () => {
  test("continue: false blocks with its stopReason; the permission decision's reason comes first; plain text is no decision", () => {
    expect(jsonDecision('{"continue": false, "stopReason": "halt everything"}')).toEqual({ block: true, reason: "halt everything" })
    expect(
      jsonDecision('{"continue": false, "stopReason": "s", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no .env"}}'),
    ).toEqual({ block: true, reason: "no .env" })
    expect(jsonDecision('{"decision": "approve"}')).toEqual({ block: false, permission: "allow" })
    expect(jsonDecision("all good")).toBeUndefined()
    expect(jsonDecision("{not json")).toBeUndefined()
  })
})
