import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import { resultProblems } from "../support/claude-shapes.ts"
import { project } from "../support/harness.ts"

// A run that fails before its session opens still reports a session id string, as every result of Claude Code's
// does (the SDKs type it as one): the session the run asked for, else a new id that names no session file.
setDefaultTimeout(60_000)

describe("the result of a run that could not start", () => {
  test("anvil run -f json without a model: a result of Claude's shape with a new session id", async () => {
    const r = await runAnvil(["run", "-f", "json", "hi"], { cwd: project({}), env: {} })
    const result = JSON.parse(r.stdout)
    expect(result).toMatchObject({ type: "result", is_error: true, reason: "config" })
    expect(resultProblems(result)).toEqual([])
    expect(result.session_id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/)
  })

  test("the session asked for (anvil run --session, -p --resume) is the result's session id", async () => {
    const run = await runAnvil(["run", "-f", "json", "--session", "20260101-000000-abcd", "hi"], { cwd: project({}), env: {} })
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, session_id: "20260101-000000-abcd" })
    const stdin = `${JSON.stringify({ type: "user", message: { role: "user", content: "hi" } })}\n`
    const host = await runAnvil(["-p", "--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--resume", "20260101-000000-beef"], { cwd: project({}), env: {}, stdin })
    const result = jsonLines(host.stdout).find((m) => m.type === "result")
    expect(resultProblems(result)).toEqual([])
    expect(result.session_id).toBe("20260101-000000-beef")
  })
})
