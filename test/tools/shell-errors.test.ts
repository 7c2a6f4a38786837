import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { MAX_MASK_ENTRIES, readSandboxSettings } from "../../src/sandbox/settings.ts"
import { tooManyMasks } from "../../src/sandbox/rule-masks.ts"
import { makeSandbox } from "../../src/sandbox/sandbox.ts"
import { SandboxRefused } from "../../src/shell/shell-error.ts"
import { shellToolError } from "../../src/tools/shell-errors.ts"
import { tempDir } from "../support/harness.ts"

// The sandbox's refusals carry why and the next step; the bash tool only translates them.
describe("a command the sandbox would not run", () => {
  test("the refusal's own next step reaches the envelope, its cause picks the code", () => {
    const rules = shellToolError(new SandboxRefused({ message: "not run", cwd: ".", refusedBy: "rules", nextStep: "narrow the rule" }), { command: "true" })
    expect([rules.code, rules.message, rules.details]).toEqual(["PERMISSION_DENIED", "not run", "narrow the rule"])
    const machine = shellToolError(new SandboxRefused({ message: "no proxy", cwd: ".", refusedBy: "machine", nextStep: "set sandbox.network" }), { command: "true" })
    expect([machine.code, machine.details]).toEqual(["EXECUTION_ERROR", "set sandbox.network"])
  })

  test("the limit the refusal names is the walk's own", () => {
    expect(tooManyMasks.message).toContain(`stops after ${MAX_MASK_ENTRIES.toLocaleString("en-US")} entries`)
  })

  test("a required sandbox that cannot start says to install bubblewrap or lift the requirement", async () => {
    const root = tempDir("anvil-require-")
    // No bwrap on this PATH: the probe fails, and sandbox.require refuses rather than run unconfined.
    const { service } = makeSandbox({ root, env: { PATH: root, HOME: root }, sessionId: "t", settings: { ...readSandboxSettings({ require: true }, undefined) } })
    const failed = await Effect.runPromise(Effect.flip(service.wrap({ cwd: root })))
    expect(failed.refusedBy).toBe("machine")
    expect(failed.message).toContain("sandbox.require is on, so the command was not run")
    expect(failed.nextStep).toContain("set sandbox.require to false")
  })
})
