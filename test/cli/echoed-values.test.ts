import { describe, expect, test } from "bun:test"
import { parseAgentArgs } from "../../src/cli/agent-args.ts"
import { UsageError } from "../../src/cli/args.ts"
import { parsePrintFlags } from "../../src/host/print-flags.ts"
import { shownValue } from "../../src/protocol/shown-value.ts"
import { runAnvil } from "../support/anvil-cli.ts"
import { tempDir } from "../support/temp-dirs.ts"

/** The usage error `anvil run ARGV` stops with. */
const usage = (argv: ReadonlyArray<string>): string => {
  let message = "(accepted)"
  try {
    parseAgentArgs(argv, "run")
  } catch (e) {
    message = e instanceof UsageError ? e.message : `not a usage error: ${String(e)}`
  }
  return message
}

// Nothing a terminal acts on: no C0/C1 control, no line separator, no bidirectional override, no lone surrogate.
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe("values a command line echoes back", () => {
  test("shownValue escapes what would act on a terminal and bounds the length", () => {
    expect(shownValue("plain")).toBe("'plain'")
    expect(shownValue("a\u001b[31mb\nc\td")).toBe("'a\\u001b[31mb\\nc\\td'")
    expect(shownValue("x\u202eevil\u0085\ud800")).toBe("'x\\u202eevil\\u0085\\ud800'")
    const long = shownValue("y".repeat(5000))
    expect(long).toBe(`'${"y".repeat(80)}…' (5000 characters)`)
    // A cut inside a surrogate pair drops the half.
    expect(shownValue(`${"z".repeat(79)}😀tail`)).toBe(`'${"z".repeat(79)}…' (85 characters)`)
  })

  test("--session with an id no session can have is a usage error that shows it escaped and cut", () => {
    const escape = usage(["--session", "ab\u001b[31mc\nforged line", "hi"])
    expect(escape).toStartWith("anvil run: --session 'ab\\u001b[31mc\\nforged line' is not a session id")
    expect(escape).not.toMatch(ACTIVE)
    const huge = usage(["--session", "q".repeat(100_000), "hi"])
    expect(huge.length).toBeLessThan(400)
    expect(huge).toContain("(100000 characters)")
    expect(usage(["--session=../etc", "hi"])).toContain("--session '../etc' is not a session id")
    expect(parseAgentArgs(["--session", "20260101-000000-abcd", "hi"], "run").sessionId).toBe("20260101-000000-abcd")
    // The SDK host's --resume says the same, and does not resume.
    const flags = parsePrintFlags(["-p", "--resume", "bad\u0007id", "hi"])
    expect(flags.errors.join("\n")).toContain("--resume 'bad\\u0007id' is not a session id")
    expect(flags.resume).toBeUndefined()
  })

  test("every other echoed option value is escaped and bounded", () => {
    for (const argv of [["--format", "x\u001bq"], ["--engine", "\u009bz"], ["--max-steps", "1\n2"], ["--timeout", "\u202eq"], ["--bogus\u001b", "hi"], ["--allow", "\u001b:"]]) {
      const message = usage(argv)
      expect(message).not.toMatch(ACTIVE)
      expect(message).toMatch(/\\[nu]/)
    }
    expect(parsePrintFlags(["--max-turns", "z".repeat(10_000)]).errors[0]!.length).toBeLessThan(200)
  })

  test("through the CLI: exit 2, one line on stderr, for run and chat alike; an unknown valid id stays exit 3", async () => {
    const root = tempDir()
    for (const command of ["run", "chat"]) {
      const r = await runAnvil([command, "--session", `x\u001b]0;pwned\u0007${"w".repeat(3000)}`, ...(command === "run" ? ["hi"] : [])], { cwd: root })
      expect(r.code).toBe(2)
      expect(r.stderr).not.toMatch(/[\u0007\u001b]/)
      expect(r.stderr.trim().split("\n")[0]).toContain(`anvil ${command}: --session 'x\\u001b]0;pwned\\u0007`)
      expect(r.stderr.length).toBeLessThan(600)
    }
    const missing = await runAnvil(["run", "--session", "nope-123", "x"], { cwd: root })
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain("No session 'nope-123'")
  }, 60_000)
})
