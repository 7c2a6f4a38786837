import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { checkConfig } from "../../src/config/check.ts"
import { JsoncSyntaxError, parseJsoncTree } from "../../src/config/jsonc.ts"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir } from "../support/harness.ts"

setDefaultTimeout(60_000)

const check = (text: string) => {
  const parsed = parseJsoncTree(text)
  if (parsed instanceof JsoncSyntaxError) throw new Error(parsed.message)
  return checkConfig("/p/anvil.json", text, parsed.tree, parsed.value).map((w) => `${w.line}:${w.column} ${w.kind} ${w.key}: ${w.message}`)
}

describe("a number in anvil.json beyond what a number holds", () => {
  test("is said as written, once per key, with what the key expects (it read as null before)", () => {
    expect(check('{\n  "max_steps": 1e400,\n  "plugins": {"hook_timeout_ms": -1E+400}\n}')).toEqual([
      "2:16 invalid_value max_steps: 'max_steps' is 1e400 (too large for a number: it reads as Infinity): expected a finite number",
      "3:34 invalid_value plugins.hook_timeout_ms: 'plugins.hook_timeout_ms' is -1E+400 (too large for a number: it reads as -Infinity): expected a finite number",
    ])
  })

  test("a non-zero number that reads as 0 is said too, even where 0 is allowed; 0 written any way is not", () => {
    expect(check('{"verify_attempts": 0.0e-999, "sessions": {"retention_days": 5e-400}}').join("\n")).toBe(
      "1:62 invalid_value sessions.retention_days: 'sessions.retention_days' is 5e-400 (too small for a number: it reads as 0): write a number within ±1.7976931348623157e308 and, unless it is 0, at least 5e-324 from 0",
    )
    expect(check('{"max_steps": 1e308, "subagent_max_steps": 0e5}').filter((w) => w.includes("for a number"))).toEqual([])
  })

  test("where any value is taken (a plugin's options, in a list) it is said all the same; under an unknown key, only the key", () => {
    expect(check('{"plugins": {"options": {"guard": {"limits": [1, 2e999]}}}, "bash": {"timeout_ms": 1e400}}')).toEqual([
      "1:50 invalid_value plugins.options.guard.limits.1: 'plugins.options.guard.limits.1' is 2e999 (too large for a number: it reads as Infinity): write a number within ±1.7976931348623157e308 and, unless it is 0, at least 5e-324 from 0",
      "1:61 unknown_key bash: unknown key 'bash' (not an anvil setting; the nearest valid key is 'lsp')",
    ])
  })

  test("through the binary: anvil config names the key and what was written; --strict stops; the default applies", async () => {
    const root = project({ "anvil.json": '{\n  "max_steps": 1e400\n}\n' })
    const home = tempDir("anvil-range-home-")
    mkdirSync(join(home, "h"))
    const env = { HOME: join(home, "h"), XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache") }
    const shown = await runBinary(["config"], { cwd: root, env })
    expect(shown.code).toBe(0)
    expect(shown.stderr).toContain(`anvil.json:2:16: 'max_steps' is 1e400 (too large for a number: it reads as Infinity): expected a finite number`)
    expect(shown.stderr).not.toContain("null")
    expect(shown.stdout).toMatch(/max_steps\s+50\s+\(default\)/)
    // Remembered checks give the same line on the next call.
    expect((await runBinary(["config"], { cwd: root, env })).stderr).toBe(shown.stderr)
    const strict = await runBinary(["--strict", "config"], { cwd: root, env })
    expect(strict.code).toBe(2)
    writeFileSync(join(root, "anvil.json"), '{"max_steps": 1e3}\n')
    expect((await runBinary(["config"], { cwd: root, env })).stderr).toBe("")
  })
})
