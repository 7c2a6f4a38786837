import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
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
