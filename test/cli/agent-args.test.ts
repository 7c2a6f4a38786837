import { describe, expect, test } from "bun:test"
import { parseAgentArgs } from "../../src/cli/agent-args.ts"
import { UsageError } from "../../src/cli/args.ts"

const usage = (argv: ReadonlyArray<string>): string => {
  try {
    parseAgentArgs(argv, "run")
  } catch (e) {
    if (e instanceof UsageError) return e.message
    throw e
  }
  return "(accepted)"
}

describe("anvil run's options", () => {
  test("an option that takes a value, followed by another option, is a usage error naming both, not a value", () => {
    expect(usage(["--session", "-f", "json", "hi"])).toBe("anvil run: --session needs a value, not the option '-f' (write --session=VALUE for a value that starts with '-')")
    expect(usage(["--verify", "--yes", "hi"])).toContain("--verify needs a value, not the option '--yes'")
    expect(usage(["--model"])).toBe("anvil run: --model needs a value")
    // A negative number is a value, refused for what it is.
    expect(usage(["--max-steps", "-1", "hi"])).toBe("anvil run: --max-steps needs a positive whole number, not '-1'")
    expect(parseAgentArgs(["--verify=-x", "hi"], "run").verify).toBe("-x")
    expect(parseAgentArgs(["--session", "20260101-000000-abcd", "hi"], "run").sessionId).toBe("20260101-000000-abcd")
  })
})
