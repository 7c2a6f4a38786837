import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import { project, writeTree } from "../support/harness.ts"

setDefaultTimeout(60_000)

// A misspelt key, a wrong type and an unknown section, on lines 3, 4 and 5.
const BAD = `{
  // settings with three mistakes
  "tools": { "read": { "max_limt": 500 } },
  "max_steps": "ten",
  "telemetry": { "enabled": true }
}
`

const badProject = () =>
  project({ "anvil.json": BAD, "a.txt": "alpha\n", "turns.json": JSON.stringify([{ text: "done" }, { text: "again" }]) })

/** The three warnings, each naming the file, the line, the key path and (for keys) the nearest valid one. */
const expectThreeWarnings = (stderr: string, root: string) => {
  const file = join(root, "anvil.json")
  const lines = stderr.split("\n").filter((l) => l.startsWith("anvil: warning:"))
  expect(lines).toHaveLength(3)
  expect(lines[0]).toBe(`anvil: warning: ${file}:3:24: unknown key 'tools.read.max_limt' — did you mean 'tools.read.max_limit'?`)
  expect(lines[1]).toStartWith(`anvil: warning: ${file}:4:16: 'max_steps' is "ten": expected`)
  expect(lines[2]).toStartWith(`anvil: warning: ${file}:5:3: unknown key 'telemetry'`)
  expect(lines[2]).toContain("nearest valid key")
}

describe("configuration warnings and anvil config", () => {
  test("anvil tool: warnings on stderr, the call still runs; --strict stops it with exit code 2", async () => {
    const root = badProject()
    const r = await runAnvil(["tool", "read", '{"path":"a.txt"}'], { cwd: root })
    expect(r.code).toBe(0)
    expectThreeWarnings(r.stderr, root)
    expect(JSON.parse(r.stdout).status).toBe("success")
    const strict = await runAnvil(["--strict", "tool", "read", '{"path":"a.txt"}'], { cwd: root })
    expect(strict.code).toBe(2)
    expect(strict.stdout).toBe("")
    expect(strict.stderr).toContain("3 configuration warnings are an error with --strict")
  })

  test("anvil run: warnings on stderr and as stream-json system events before init; --strict exits 2", async () => {
    const root = badProject()
    const r = await runAnvil(["run", "--model", "replay/turns.json", "--format", "stream-json", "hello"], { cwd: root })
    expect(r.code).toBe(0)
    expectThreeWarnings(r.stderr, root)
    const events = jsonLines(r.stdout)
    expect(events.slice(0, 4).map((e) => `${e.type}/${e.subtype}`)).toEqual(["system/config_warning", "system/config_warning", "system/config_warning", "system/init"])
    expect(events[0]).toMatchObject({
      subtype: "config_warning",
      file: join(root, "anvil.json"),
      line: 3,
      key: "tools.read.max_limt",
      nearest: "tools.read.max_limit",
    })
    expect(events.at(-1)).toMatchObject({ type: "result", is_error: false })
    const strict = await runAnvil(["run", "--strict", "--model", "replay/turns.json", "hello"], { cwd: root })
    expect(strict.code).toBe(2)
    expect(strict.stderr).toContain("with --strict")
  })

  test("anvil chat with no model exits 3, a configuration error, as anvil run does", async () => {
    const root = project()
    for (const command of ["chat", "run"]) {
      const r = await runAnvil(command === "run" ? [command, "hello"] : [command], { cwd: root, stdin: "hello\n" })
      expect(r.code).toBe(3)
      expect(r.stderr).toContain(`anvil ${command}: No model is configured`)
    }
  })

  test("anvil chat (no terminal): the warnings come first on stderr; --strict exits 2", async () => {
    const root = badProject()
    const r = await runAnvil(["chat", "--model", "replay/turns.json"], { cwd: root, stdin: "hello\n" })
    expect(r.code).toBe(0)
    expectThreeWarnings(r.stderr, root)
    expect(r.stderr.indexOf("anvil: warning:")).toBeLessThan(r.stderr.indexOf("session"))
    const strict = await runAnvil(["chat", "--strict", "--model", "replay/turns.json"], { cwd: root, stdin: "hello\n" })
    expect(strict.code).toBe(2)
  })

  test("--strict means the same for anvil mcp, plugins, tools, skills, sandbox and sessions prune: the warnings, then exit 2 before anything starts, loads or is written", async () => {
    const root = badProject()
    writeTree(root, {
      ".config/anvil/anvil.json": JSON.stringify({ mcpServers: { marker: { command: "sh", args: ["-c", "touch mcp-started; sleep 5"] } } }),
      ".config/anvil/plugins/loud.ts": `import { writeFileSync } from "node:fs"\nwriteFileSync(${JSON.stringify(join(root, "plugin-loaded"))}, "x")\nexport default []\n`,
    })
    const commands: ReadonlyArray<ReadonlyArray<string>> = [
      ["--strict", "mcp"],
      ["mcp", "list", "--json", "--strict"],
      ["mcp", "--strict", "tools", "marker"],
      ["--strict", "plugins"],
      ["plugins", "--json", "--strict"],
      ["plugins", "trust", "--strict"],
      ["--strict", "plugins", "init", "word_count"],
      ["tools", "--strict"],
      ["--strict", "skills"],
      ["sandbox", "--strict"],
      ["sessions", "prune", "--strict"],
      ["--strict", "tool", "mcp__marker__echo", "{}"],
    ]
    for (const args of commands) {
      const r = await runAnvil(args, { cwd: root })
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: "" })
      expectThreeWarnings(r.stderr, root)
      expect(r.stderr).toContain(`anvil ${args.find((a) => !a.startsWith("-"))}: 3 configuration warnings are an error with --strict`)
    }
    expect(existsSync(join(root, "mcp-started"))).toBe(false)
    expect(existsSync(join(root, "plugin-loaded"))).toBe(false)
    expect(existsSync(join(root, ".anvil", "plugins", "word_count"))).toBe(false)
    // Without --strict they go on as before.
    const listed = await runAnvil(["plugins", "--json"], { cwd: root })
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout).plugins.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([["loud", "loaded"]])
  })

  test("anvil config refuses the flag values anvil run refuses (exit 2, the same reason), instead of showing them as in force", async () => {
    const root = project({})
    for (const [args, reason] of [
      [["--max-steps", "abc"], "--max-steps needs a positive whole number, not 'abc'"],
      [["--max-steps=0"], "--max-steps needs a positive whole number, not '0'"],
      [["--engine", "bogus"], "--engine is native or react, not 'bogus'"],
    ] as const) {
      const r = await runAnvil(["config", ...args], { cwd: root })
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toContain(`anvil config: ${reason}`)
      const run = await runAnvil(["run", ...args, "hi"], { cwd: root })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(reason)
    }
  })

  test("anvil config: effective values with their source; --json; config schema; a clean file warns nothing", async () => {
    const root = project({
      "anvil.json": '{ "$schema": "./anvil.schema.json", "output": { "max_lines": 300 } }',
      ".config/anvil/anvil.json": '{ "engine": "react" }',
    })
    const r = await runAnvil(["config", "--max-steps", "7"], { cwd: root, env: { TOOL_OUTPUT_MAX_BYTES: "4096" } })
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    const line = (key: string) => r.stdout.split("\n").find((l) => l.startsWith(`${key} `)) ?? ""
    expect(line("output.max_lines")).toContain(`300  (project file ${join(root, "anvil.json")})`)
    expect(line("engine")).toContain(`"react"  (user file ${join(root, ".config/anvil/anvil.json")})`)
    expect(line("output.max_bytes")).toContain("4096  (environment TOOL_OUTPUT_MAX_BYTES)")
    expect(line("max_steps")).toContain("7  (flag --max-steps)")
    expect(line("tools.read.max_limit")).toContain("200  (default)")

    const json = JSON.parse((await runAnvil(["config", "--json"], { cwd: root })).stdout)
    expect(json.settings.find((s: any) => s.key === "output.max_lines")).toEqual({
      key: "output.max_lines",
      value: 300,
      source: "project file",
      from: join(root, "anvil.json"),
    })

    const schema = await runAnvil(["config", "schema"], { cwd: root })
    expect(schema.code).toBe(0)
    const doc = JSON.parse(schema.stdout)
    expect(doc.$schema).toContain("json-schema.org")
    expect(doc.additionalProperties).toBe(false)
    expect(Object.keys(doc.properties)).toEqual(expect.arrayContaining(["model", "output", "tools", "permission", "$schema"]))

    const broken = project({ "anvil.json": '{ "a": }' })
    const bad = await runAnvil(["config"], { cwd: broken })
    expect(bad.code).toBe(3)
    expect(bad.stderr).toContain(`${join(broken, "anvil.json")}: not valid JSON (ValueExpected at line 1, column 8)`)
  })
})
