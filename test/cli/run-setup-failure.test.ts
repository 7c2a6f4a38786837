import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import { runBinary } from "../support/binary.ts"
import { resultProblems } from "../support/claude-shapes.ts"
import { project } from "../support/harness.ts"

// A scripted run that cannot start still tells a program reading its stdout why, in the result's shape.
setDefaultTimeout(60_000)

const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", ANVIL_MODEL: "openai/gpt-test" }

describe("anvil run that cannot start, with a JSON format", () => {
  test("a broken anvil.json and a missing --root: exit 3 and one result with reason config and the message", async () => {
    const root = project({})
    writeFileSync(join(root, "anvil.json"), '{ "model": ')
    for (const format of ["json", "stream-json"]) {
      const r = await runAnvil(["run", "-f", format, "hi"], { cwd: root, env })
      expect(r.code).toBe(3)
      const [result, ...more] = jsonLines(r.stdout)
      expect(more).toEqual([])
      expect(result).toMatchObject({ type: "result", is_error: true, reason: "config", exit_code: 3 })
      expect(result.errors[0]).toContain("anvil.json: not valid JSON")
      expect(r.stderr).toContain("not valid JSON")
    }
    const text = await runAnvil(["run", "hi"], { cwd: root, env })
    expect([text.code, text.stdout]).toEqual([3, ""])

    const missing = await runAnvil(["run", "-f", "json", "--root", join(root, "nope"), "hi"], { cwd: project({}), env })
    expect(missing.code).toBe(3)
    expect(JSON.parse(missing.stdout)).toMatchObject({ reason: "config", exit_code: 3 })
    expect(JSON.parse(missing.stdout).errors[0]).toContain("no such folder")
  })
})

describe("anvil run with a wrong command line, through the binary", () => {
  // Each class of mistake, with the format asked for before or after it.
  const cases: ReadonlyArray<[ReadonlyArray<string>, string, string]> = [
    [["--bogus"], "unknown_option", "unknown option '--bogus'"],
    [["--max-steps"], "missing_value", "--max-steps needs a value"],
    [["--model", "--yes"], "missing_value", "--model needs a value, not the option '--yes'"],
    [["--max-steps", "abc"], "bad_value", "--max-steps needs a positive whole number, not 'abc'"],
    [["--timeout", "soon"], "bad_value", "--timeout takes seconds"],
    [["--allow", "nosuchtool"], "bad_value", "--allow nosuchtool names no tool 'nosuchtool'"],
    [["--continue", "--session", "20260101-000000-abcd"], "conflicting_options", "use --continue or --session ID, not both"],
  ]

  test("json and stream-json print one result on stdout (reason usage, usage_error, next_step), exit 2; text prints nothing there", async () => {
    const root = project({})
    for (const [bad, kind, said] of cases) {
      // A value left out stays last (or it would take the prompt for its value); the others stand before or after the format.
      const lines = (format: ReadonlyArray<string>) =>
        bad.length === 1 && kind === "missing_value" ? [["run", ...format, "hi", ...bad]] : [["run", ...format, ...bad, "hi"], ["run", ...bad, ...format, "hi"]]
      for (const format of ["json", "stream-json"]) {
        for (const line of [...lines(["-f", format]), ...lines([`--format=${format}`])]) {
          const r = await runBinary(line, { cwd: root, env })
          expect(r.code).toBe(2)
          const [result, ...more] = jsonLines(r.stdout)
          expect(more).toEqual([])
          expect(resultProblems(result)).toEqual([])
          expect(result).toMatchObject({ type: "result", is_error: true, reason: "usage", exit_code: 2, usage_error: kind })
          expect(result.errors[0]).toStartWith("anvil run: ")
          expect(result.errors[0]).toContain(said)
          expect(result.next_step).toContain("anvil run --help")
          expect(r.stderr).toContain(said)
        }
      }
      for (const line of lines(["-f", "text"])) {
        const text = await runBinary(line, { cwd: root, env })
        expect([text.code, text.stdout]).toEqual([2, ""])
        expect(text.stderr).toContain(said)
      }
    }
  })
})
