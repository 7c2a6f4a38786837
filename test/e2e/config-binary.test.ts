import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import Ajv2020 from "ajv/dist/2020.js"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseJsonc } from "../../src/config/jsonc.ts"
import { jsonLines } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { exampleConfigs } from "../support/config-examples.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"
import { tmuxSession } from "../support/tmux.ts"

// anvil.json's warnings as a user meets them: the compiled binary in a git repository with a clean HOME, in each
// of the three ways anvil is driven (one tool, a scripted run against a model server, the chat in a terminal).
setDefaultTimeout(90_000)

// A misspelt key (line 3), a wrong type (line 4) and an unknown section (line 5).
const BAD = `{
  // three mistakes
  "output": { "max_line": 300 },
  "engine": 7,
  "telemetry": { "enabled": true }
}
`

const servers: Array<FakeServer> = []
const { available: haveTmux, tmux, waitFor, kill } = tmuxSession(`anvil-config-${process.pid}`)
// A second window on the same tmux server (killing the last session would end the server under the next one).
const strictScreen = tmuxSession(`anvil-config-${process.pid}`, "strict")

beforeAll(() => void anvilBinary(), 120_000)
afterAll(() => {
  kill()
  servers.forEach((s) => s.stop())
})

const badRepo = () => {
  const root = project({ "anvil.json": BAD, "a.txt": "alpha\n", "turns.json": JSON.stringify([{ text: "done" }]) })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  return root
}

/** The three warnings, in file order, each naming the file, the line and column, the key path and the nearest valid key. */
const expectWarnings = (text: string, file: string) => {
  const lines = text.split("\n").filter((l) => l.startsWith("anvil: warning:"))
  expect(lines).toEqual([
    `anvil: warning: ${file}:3:15: unknown key 'output.max_line' — did you mean 'output.max_lines'?`,
    `anvil: warning: ${file}:4:13: 'engine' is 7: expected "native" | "react"`,
    expect.stringMatching(new RegExp(`^anvil: warning: ${file}:5:3: unknown key 'telemetry' \\(not an anvil setting; the nearest valid key is '[a-z_]+'\\)$`)),
  ])
}

describe("anvil.json warnings through the compiled binary", () => {
  test("anvil tool: three warnings and the call runs; --strict: exit 2 and no call", async () => {
    const root = badRepo()
    const file = join(root, "anvil.json")
    const r = await runBinary(["tool", "read", '{"path":"a.txt"}'], { cwd: root })
    expect(r.code).toBe(0)
    expectWarnings(r.stderr, file)
    expect(JSON.parse(r.stdout).status).toBe("success")
    const strict = await runBinary(["--strict", "tool", "read", '{"path":"a.txt"}'], { cwd: root })
    expect(strict.code).toBe(2)
    expect(strict.stdout).toBe("")
    expectWarnings(strict.stderr, file)
    expect(strict.stderr).toContain("3 configuration warnings are an error with --strict")
    // The same for the commands that read the configuration without a tool call.
    for (const args of [["mcp", "list", "--strict"], ["--strict", "plugins"]]) {
      const other = await runBinary(args, { cwd: root })
      expect(other.code).toBe(2)
      expect(other.stdout).toBe("")
      expectWarnings(other.stderr, file)
      expect(other.stderr).toContain(`anvil ${args.find((a) => !a.startsWith("-"))}: 3 configuration warnings are an error with --strict`)
    }
  })

  test("anvil tool: a file's check is remembered in the cache folder (a planted warning shows), a changed file is checked again", async () => {
    const root = badRepo()
    const file = join(root, "anvil.json")
    const env = { XDG_CACHE_HOME: join(root, "cache") }
    const first = await runBinary(["tool", "read", '{"path":"a.txt"}'], { cwd: root, env })
    expectWarnings(first.stderr, file)
    const checks = join(root, "cache", "anvil", "config-checks")
    const [entry, ...more] = readdirSync(checks)
    expect(more).toEqual([])
    const remembered = JSON.parse(readFileSync(join(checks, entry!), "utf8"))
    writeFileSync(join(checks, entry!), JSON.stringify({ ...remembered, warnings: [{ file, line: 1, column: 1, key: "planted", kind: "unknown_key", message: "planted" }] }))
    const again = await runBinary(["--strict", "tool", "read", '{"path":"a.txt"}'], { cwd: root, env })
    expect(again.stderr).toContain(`anvil: warning: ${file}:1:1: planted`)
    expect(again.code).toBe(2)
    // A changed file is checked again; then its settings come from the remembered entry (a commented file is read without its parser).
    writeFileSync(file, BAD.replace('"max_line": 300', '"max_lines": 7'))
    const changed = await runBinary(["tool", "read", '{"path":"a.txt"}'], { cwd: root, env })
    expect(changed.stderr).not.toContain("planted")
    expect(changed.stderr).not.toContain("max_line")
    expect(changed.stderr).toContain("unknown key 'telemetry'")
    const config = await runBinary(["config"], { cwd: root, env })
    expect(config.stderr).toBe(changed.stderr)
    expect(config.stdout.split("\n").find((l) => l.startsWith("output.max_lines "))).toMatch(/ 7 .*project file/)
    expect(readdirSync(checks)).toHaveLength(2)
  })

  test("anvil tool: a sandbox value anvil cannot honour stops the call (exit 3) after the warnings are shown", async () => {
    const root = project({ "anvil.json": '{\n  "modle": "x",\n  "sandbox": { "mode": 5 }\n}\n', "a.txt": "alpha\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const r = await runBinary(["tool", "read", '{"path":"a.txt"}'], { cwd: root })
    expect(r.code).toBe(3)
    expect(r.stdout).toBe("")
    const file = join(root, "anvil.json")
    expect(r.stderr).toContain(`anvil: warning: ${file}:2:3: unknown key 'modle' — did you mean 'model'?`)
    expect(r.stderr).toContain(`anvil: warning: ${file}:3:24: 'sandbox.mode' is 5`)
    expect(r.stderr).toContain("sandbox.mode is one of workspace-write, read-only, off")
  })

  test("anvil run against a model server: warnings on stderr and as stream-json events before init; --strict: exit 2", async () => {
    const root = badRepo()
    const file = join(root, "anvil.json")
    const server = fakeOpenAI([{ text: "All done." }])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k", ANVIL_MODEL: "openai/fake" }
    const r = await runBinary(["run", "--format", "stream-json", "hello"], { cwd: root, env })
    expect(r.code).toBe(0)
    expectWarnings(r.stderr, file)
    const events = jsonLines(r.stdout)
    expect(events.slice(0, 4).map((e) => `${e.type}/${e.subtype}`)).toEqual(["system/config_warning", "system/config_warning", "system/config_warning", "system/init"])
    expect(events.slice(0, 3).map((e) => [e.file, e.line, e.key, e.nearest])).toEqual([
      [file, 3, "output.max_line", "output.max_lines"],
      [file, 4, "engine", undefined],
      [file, 5, "telemetry", expect.any(String)],
    ])
    expect(events.at(-1)).toMatchObject({ type: "result", is_error: false, result: "All done." })
    expect(server.requests).toHaveLength(1)

    const strict = await runBinary(["run", "--strict", "--format", "stream-json", "hello"], { cwd: root, env })
    expect(strict.code).toBe(2)
    expect(jsonLines(strict.stdout).at(-1)).toMatchObject({ type: "result", is_error: true, exit_code: 2 })
    expect(server.requests).toHaveLength(1)
  })

  test.skipIf(!haveTmux)("anvil chat in a terminal: the warnings above the prompt; --strict: exit 2 before it", async () => {
    const root = badRepo()
    const file = join(root, "anvil.json")
    const start = (session: string, ...args: Array<string>) => {
      const env = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", "NO_COLOR=1"]
      const command = ["env", "-i", ...env, anvilBinary(), "chat", "--model", "replay/turns.json", ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
      tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "40", "-c", root, `${command}; echo "[exited $?]"; sleep 30`)
    }
    start("chat")
    start("strict", "--strict")
    const screen = await waitFor("› ")
    expectWarnings(screen, file)
    expect(screen.indexOf("anvil: warning:")).toBeLessThan(screen.indexOf("›"))
    tmux("send-keys", "-t", "chat", "C-d")
    await waitFor("[exited 0]")

    const refused = await strictScreen.waitFor("[exited 2]")
    expectWarnings(refused, file)
    expect(refused).not.toContain("›")
  })

  test("anvil config shows where values come from; the printed JSON Schema accepts the repository's examples and rejects the three mistakes", async () => {
    const root = badRepo()
    const config = await runBinary(["config"], { cwd: root })
    expect(config.code).toBe(0)
    expectWarnings(config.stderr, join(root, "anvil.json"))
    expect(config.stdout.split("\n").find((l) => l.startsWith("tools.read.max_limit "))).toContain("200  (default)")

    const printed = await runBinary(["config", "schema"], { cwd: root })
    expect(printed.code).toBe(0)
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(printed.stdout))
    const examples = exampleConfigs()
    expect(examples.length).toBeGreaterThanOrEqual(4)
    for (const { from, config: example } of examples) {
      if (!validate(example)) throw new Error(`${from}: ${JSON.stringify(validate.errors)}`)
    }
    expect(validate(parseJsonc(BAD))).toBe(false)
    // The root (telemetry), output (max_line) and engine (a number).
    expect([...new Set(validate.errors?.map((e) => e.instancePath))].sort()).toEqual(["", "/engine", "/output"])
  })
})
