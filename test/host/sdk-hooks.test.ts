import { describe, expect, test } from "bun:test"
import type { ControlChannel } from "../../src/host/control-channel.ts"
import { makeSdkHooks } from "../../src/host/sdk-hooks.ts"

/** A channel whose host answers every hook callback with `answer`, recording the callbacks called. */
const channel = (answer: Record<string, unknown> = {}) => {
  const called: Array<string> = []
  const fake: ControlChannel = {
    request: async (request) => {
      called.push(String(request.callback_id))
      return answer
    },
    succeed: () => {},
    fail: () => {},
    receive: () => {},
    cancel: () => {},
    pending: () => [],
    close: () => {},
  }
  return { fake, called }
}

const base = () => ({ session_id: "s", cwd: "/", transcript_path: "", permission_mode: "default" })

describe("the host's hook matchers", () => {
  test("a matcher that is no valid regular expression is reported and selects nothing; valid ones select as before", async () => {
    const { fake, called } = channel()
    const problems: Array<string> = []
    const hooks = makeSdkHooks(
      { PreToolUse: [{ matcher: "Bash(", hookCallbackIds: ["bad"] }, { matcher: "Bash|Write", hookCallbackIds: ["good"] }, { hookCallbackIds: ["all"] }] },
      fake,
      base,
      (p) => problems.push(p),
      () => {},
    )
    expect(hooks.invalid).toEqual([
      `the host's PreToolUse hook matcher "Bash(" is not a valid regular expression (missing )), so its hook never runs; fix the matcher`,
    ])
    const verdict = await hooks.call("PreToolUse", {}, "Bash")
    expect(called).toEqual(["good", "all"])
    expect(verdict.decision).toBeUndefined()
    await hooks.call("PreToolUse", {}, "Read")
    expect(called).toEqual(["good", "all", "all"])
    expect(problems).toEqual([])
  })

  test("an invalid matcher whose hooks block on failure refuses what its event guards, saying why", async () => {
    const { fake, called } = channel()
    const hooks = makeSdkHooks({ PreToolUse: [{ matcher: "[", onFailure: "block", hookCallbackIds: ["guard"] }] }, fake, base, () => {}, () => {})
    expect(hooks.invalid[0]).toContain("every tool call is refused; fix the matcher")
    const verdict = await hooks.call("PreToolUse", {}, "Read")
    expect(verdict.decision).toBe("deny")
    expect(verdict.reason).toContain(`its matcher "[" is not a valid regular expression`)
    expect(called).toEqual([])
  })

  test("an answer anvil cannot use is reported with the callback and the field; the valid part is acted on", async () => {
    const problems: Array<string> = []
    const flat = channel({ permissionDecision: "deny", systemMessage: "m" })
    const hooks = makeSdkHooks({ PreToolUse: [{ hookCallbackIds: ["flat"] }] }, flat.fake, base, (p) => problems.push(p), () => {})
    expect((await hooks.call("PreToolUse", {}, "Read")).decision).toBeUndefined()
    expect(problems).toEqual([
      'host hook PreToolUse (flat) answered JSON with a part anvil cannot use, ignored: permissionDecision is read only inside hookSpecificOutput ({"hookSpecificOutput": {"permissionDecision": …}}), not at the top level',
    ])
    // Asked again, the same callback answers alike: it runs, and is not reported a second time.
    expect((await hooks.call("PreToolUse", {}, "Read")).decision).toBeUndefined()
    expect(flat.called).toEqual(["flat", "flat"])
    expect(problems).toHaveLength(1)
    // permissionDecision is PreToolUse's: after the call it is reported, not taken for a refusal.
    const after = channel({ hookSpecificOutput: { permissionDecision: "deny", additionalContext: "noted" }, reason: "r" })
    const post = makeSdkHooks({ PostToolUse: [{ hookCallbackIds: ["post"] }] }, after.fake, base, (p) => problems.push(p), () => {})
    const verdict = await post.call("PostToolUse", {}, "Read")
    expect(verdict.decision).toBeUndefined()
    expect(verdict.additionalContext).toEqual(["noted"])
    expect(problems[1]).toBe("host hook PostToolUse (post) answered JSON with a part anvil cannot use, ignored: hookSpecificOutput.permissionDecision is read only from PreToolUse hooks, not PostToolUse")
    const good = channel({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } })
    const fine = makeSdkHooks({ PreToolUse: [{ hookCallbackIds: ["good"] }] }, good.fake, base, (p) => problems.push(p), () => {})
    expect(await fine.call("PreToolUse", {}, "Read")).toMatchObject({ decision: "deny", reason: "no" })
    expect(problems).toHaveLength(2)
  })
})
