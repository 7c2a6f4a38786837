import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { Config, SETTING_VARIABLES } from "../../src/config/config.ts"
import { ENV_KEYS } from "../../src/config/schema.ts"
import { formatWarning } from "../../src/config/warning.ts"
import { OutputSettings } from "../../src/output/output-settings.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"

const load = (root: string, env: Record<string, string>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const config = yield* Config
      const settings = yield* OutputSettings.make(root)
      return { warnings: config.warnings, settings }
    }).pipe(Effect.provide(Config.layer({ root, env: { HOME: tempDir(), ...env }, checkCache: false })), Effect.provide(PlatformLive)),
  )

describe("TOOL_OUTPUT_* values that are refused are reported, never silently ignored", () => {
  test("the variables config.ts checks for are exactly those the sections map to settings", () => {
    expect([...SETTING_VARIABLES].sort()).toEqual(Object.keys(ENV_KEYS).sort())
  })

  test("each bad variable is one warning naming it, its value, what is accepted and the value used instead", async () => {
    const root = project({ "anvil.json": '{ "output": { "max_bytes": 4096 } }' })
    const { warnings, settings } = await load(root, {
      TOOL_OUTPUT_MAX_LINES: "abc",
      TOOL_OUTPUT_MAX_BYTES: "-5",
      TOOL_OUTPUT_TRUNCATE_DIRECTION: "up",
      TOOL_OUTPUT_RETENTION_DAYS: "0.5",
    })
    const lines = warnings.map(formatWarning)
    expect(warnings.map((w) => [w.variable, w.kind])).toEqual([
      ["TOOL_OUTPUT_MAX_LINES", "invalid_environment"],
      ["TOOL_OUTPUT_MAX_BYTES", "invalid_environment"],
      ["TOOL_OUTPUT_TRUNCATE_DIRECTION", "invalid_environment"],
      ["TOOL_OUTPUT_RETENTION_DAYS", "invalid_environment"],
    ])
    expect(lines[0]).toBe(`environment: TOOL_OUTPUT_MAX_LINES="abc" is not valid for 'output.max_lines': expected a finite number; the default 2000 is used instead`)
    expect(lines[1]).toContain(`TOOL_OUTPUT_MAX_BYTES="-5"`)
    expect(lines[1]).toContain("greater than or equal to 1; anvil.json's 4096 is used instead")
    expect(lines[2]).toContain(`"head" | "tail" | "head_tail"; the default "head" is used instead`)
    // 0.5 was floored to 0 before: a limit of zero lines.
    expect(lines[3]).toContain("the default 7 is used instead")
    // The readers use exactly the values the warnings name.
    expect(settings).toMatchObject({ maxLines: 2000, maxBytes: 4096, direction: "head", retentionDays: 7 })
  })

  test("valid and empty values give no warning; anvil.json's refused output values say the value used instead", async () => {
    const root = project({ "anvil.json": '{ "output": { "max_lines": -3, "direction": "up" } }' })
    const { warnings, settings } = await load(root, { TOOL_OUTPUT_MAX_LINES: "1e2", TOOL_OUTPUT_MAX_BYTES: " " })
    expect(warnings.map((w) => [w.key, w.kind])).toEqual([
      ["output.max_lines", "invalid_value"],
      ["output.direction", "invalid_value"],
    ])
    expect(warnings[0]!.message).toBe("'output.max_lines' is -3: expected a value greater than or equal to 1; TOOL_OUTPUT_MAX_LINES's 100 is used instead")
    expect(warnings[1]!.message).toContain('the default "head" is used instead')
    expect(settings).toMatchObject({ maxLines: 100, maxBytes: 51200, direction: "head" })
  })

  test("through the binary: the warning is on stderr, the call still answers with the value named, --strict refuses", async () => {
    const root = project({ "anvil.json": '{ "output": { "max_lines": 3 } }' })
    const env = { TOOL_OUTPUT_MAX_LINES: "-1" }
    const ran = await runBinary(["tool", "bash", '{"command":"seq 1 10"}'], { cwd: root, env })
    expect(ran.stderr).toContain(`anvil: warning: environment: TOOL_OUTPUT_MAX_LINES="-1" is not valid for 'output.max_lines'`)
    expect(ran.stderr).toContain("anvil.json's 3 is used instead")
    const envelope = JSON.parse(ran.stdout)
    expect(envelope.status).toBe("partial")
    expect(envelope.data.truncation).toMatchObject({ max_lines: 3, kept_lines: 3 })
    const strict = await runBinary(["tool", "--strict", "bash", '{"command":"true"}'], { cwd: root, env })
    expect(strict.code).toBe(2)
    expect(strict.stderr).toContain("fix anvil.json or the environment")
  })
})
