import { describe, expect, test } from "bun:test"
import Ajv2020 from "ajv/dist/2020.js"
import { Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { checkConfig, formatWarning } from "../../src/config/check.ts"
import { Config } from "../../src/config/config.ts"
import { effectiveSettings } from "../../src/config/effective.ts"
import { JsoncSyntaxError, parseJsoncTree } from "../../src/config/jsonc.ts"
import { configJsonSchema, keysAt, objectAt, settingsOf } from "../../src/config/schema.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { exampleConfigs } from "../support/config-examples.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

const REPO = join(import.meta.dir, "..", "..")

const check = (text: string, file = "/p/anvil.json") => {
  const parsed = parseJsoncTree(text)
  if (parsed instanceof JsoncSyntaxError) throw new Error(parsed.message)
  return checkConfig(file, text, parsed.tree, parsed.value)
}

const validator = () => new Ajv2020({ strict: false, allErrors: true }).compile(configJsonSchema())

describe("AnvilConfig", () => {
  test("a misspelt key, a wrong type and an unknown section: three warnings with file, line, key path and nearest key", () => {
    const warnings = check(`{
  // project settings
  "tools": { "read": { "max_limt": 500 } },
  "max_steps": "ten",
  "telemetry": { "on": true },
  "output": { "max_lines": 100 },
}`)
    expect(warnings.map((w) => [w.kind, w.key, w.line, w.nearest])).toEqual([
      ["unknown_key", "tools.read.max_limt", 3, "tools.read.max_limit"],
      ["invalid_value", "max_steps", 4, undefined],
      ["unknown_key", "telemetry", 5, expect.any(String)],
    ])
    expect(formatWarning(warnings[0]!)).toBe("/p/anvil.json:3:24: unknown key 'tools.read.max_limt' — did you mean 'tools.read.max_limit'?")
    expect(warnings[1]!.message).toContain('"ten"')
    expect(warnings[1]!.message).toContain("number")
    expect(warnings[2]!.message).toContain("nearest valid key")
  })

  test("keys inside records (providers, fetch credentials) are checked too; permission levels are literals", () => {
    const warnings = check(`{
  "providers": { "lab": { "api": "openai", "bse_url": "http://x" } },
  "tools": { "fetch": { "credentials": { "a.test": { "bearer": "T" } } } },
  "permission": { "bash": { "*": "maybe", "git *": "allow" }, "edit": "deny" }
}`)
    expect(warnings.map((w) => [w.key, w.nearest])).toEqual([
      ["providers.lab.bse_url", "providers.lab.base_url"],
      ["tools.fetch.credentials.a.test.bearer", "tools.fetch.credentials.a.test.bearer_env"],
      ["permission.bash.*", undefined],
    ])
  })

  test("a wrong value inside a list is placed at that element, not at the start of the file", () => {
    const warnings = check(`{
  "plugins": {
    "disabled": ["ok", 1]
  }
}`)
    expect(warnings.map((w) => [w.key, w.line, w.column])).toEqual([["plugins.disabled.1", 3, 24]])
  })

  test("an empty or valid file has no warnings; $schema is allowed", () => {
    expect(check("{}")).toEqual([])
    expect(check('{ "$schema": "./anvil.schema.json", "model": "a/b", "skills": { "paths": "skills" }, "engine": "react" }')).toEqual([])
  })

  test("every key the code reads is described by the Schema", () => {
    const keys = new Set<string>()
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = join(dir, name)
        if (statSync(file).isDirectory()) walk(file)
        else if (file.endsWith(".ts")) {
          const text = readFileSync(file, "utf8")
          // Only files that read anvil.json (git/identity.ts reads git's own config with the same verb).
          if (!text.includes("config/config.ts")) continue
          for (const m of text.matchAll(/config\s*\.(?:get|count)\(\s*[`"]([^`"]+)[`"]/g)) keys.add(m[1]!)
        }
      }
    }
    walk(join(REPO, "src"))
    expect(keys.size).toBeGreaterThan(25)
    const leaves = new Set(settingsOf().map((s) => s.key))
    for (const key of keys) {
      // Template keys (tools.${input.tool}.max_file_bytes) are checked for every tool that uses them.
      const expanded = key.includes("${input.tool}") ? ["edit", "multiedit"].map((t) => key.replace("${input.tool}", t)) : [key]
      for (const k of expanded) {
        // `tools.read.${key}` reads the keys of the tool's defaults, which its section declares.
        const parts = k.split(".").filter((p) => p !== "${key}")
        const known = leaves.has(k) || objectAt(parts) !== undefined || keysAt(parts.slice(0, -1)).includes(parts.at(-1)!)
        if (!known) throw new Error(`config key '${k}' is read by the code but not in AnvilConfig`)
      }
    }
  })

  test("the JSON Schema accepts the repository's example configurations and rejects unknown keys and wrong types", () => {
    const validate = validator()
    const examples = exampleConfigs()
    expect(examples.length).toBeGreaterThanOrEqual(4)
    expect(examples.some((e) => e.from.startsWith("plugins/"))).toBe(true)
    for (const { from, config } of examples) {
      const ok = validate(config)
      if (!ok) throw new Error(`${from}: ${JSON.stringify(validate.errors)}`)
    }
    expect(validate({ tools: { read: { max_limt: 5 } } })).toBe(false)
    expect(validate({ max_steps: "ten" })).toBe(false)
    expect(validate({ output: { direction: "middle" } })).toBe(false)
    expect((configJsonSchema().properties as any).tools.properties.read.properties.max_limit.default).toBe(200)
  })

  test("effective settings name their source: default, user file, project file, environment, flag", async () => {
    const home = tempDir()
    writeTree(home, { ".config/anvil/anvil.json": '{ "output": { "max_lines": 10 }, "engine": "react", "max_steps": "x" }' })
    const root = project()
    writeTree(root, { "anvil.json": '{ "output": { "max_bytes": 999 }, "verify": "npm test" }' })
    const config = await Effect.runPromise(
      Config.load({ root, env: { HOME: home, TOOL_OUTPUT_RETENTION_DAYS: "3", TOOL_OUTPUT_TRUNCATE_DIRECTION: "sideways" } }).pipe(Effect.provide(PlatformLive)),
    )
    const settings = effectiveSettings(config, { model: { value: "x/y", flag: "--model" } })
    const of = (key: string) => settings.find((s) => s.key === key)
    expect(of("output.max_lines")).toEqual({ key: "output.max_lines", value: 10, source: "user file", from: join(home, ".config/anvil/anvil.json") })
    expect(of("output.max_bytes")).toMatchObject({ value: 999, source: "project file" })
    expect(of("output.retention_days")).toEqual({ key: "output.retention_days", value: 3, source: "environment", from: "TOOL_OUTPUT_RETENTION_DAYS" })
    // A value the readers would not use is not the effective one.
    expect(of("output.direction")).toMatchObject({ value: "head", source: "default" })
    expect(of("max_steps")).toMatchObject({ value: 50, source: "default" })
    expect(of("model")).toMatchObject({ value: "x/y", source: "flag", from: "--model" })
    // The refused variable is a warning too (never silently ignored).
    expect(config.warnings.map((w) => [w.key, w.kind])).toEqual([["max_steps", "invalid_value"], ["output.direction", "invalid_environment"]])
  })
})

describe("duplicate keys", () => {
  test("a key written twice in one object is a warning at the ignored one, naming the line whose value is used", () => {
    const warnings = check(`{
  "permission": {
    "bash": { "rm *": "deny", "git *": "allow", "rm *": "allow" }
  },
  "max_steps": 5,
  "tools": { "read": { "max_limit": 10 } },
  "max_steps": 9,
  "tools": { "grep": { "timeout_ms": 100 } }
}`)
    expect(warnings.map((w) => [w.kind, w.key, w.line])).toEqual([
      ["duplicate_key", "permission.bash.rm *", 3],
      ["duplicate_key", "max_steps", 5],
      ["duplicate_key", "tools", 6],
    ])
    expect(warnings[0]!.message).toBe(`'permission.bash.rm *' is set more than once: this value ("deny") is ignored, the one at line 3 ("allow") is used; remove one of them`)
    expect(warnings[2]!.message).toContain("the one at line 8 ({…}) is used")
    // No duplicates, no warning; the same key in two objects is no duplicate.
    expect(check(`{ "tools": { "read": { "max_limit": 10 }, "grep": { "timeout_ms": 10 } } }`)).toEqual([])
  })
})
