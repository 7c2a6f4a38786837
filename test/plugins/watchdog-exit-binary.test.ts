import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { jsonLines } from "../support/anvil-cli.ts"
import { runBinary } from "../support/anvil-binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"
import { processesMatching, waitUntil } from "../safety/binary.ts"

// What anvil leaves when the plugin watchdog ends it (exit 8), through the compiled binary: no process of the
// frozen plugin's (a child, a grandchild holding anvil's stderr, a child in a group of its own), and on standard
// output of `anvil run -f json|stream-json` (and of the Agent SDK's protocol) the result a script reads, as for any
// other failure.
setDefaultTimeout(120_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

let nextTag = 7700 + (process.pid % 500) * 10

/** A plugin that starts four processes while loading (one named as anvil's process watchdog is), then never yields. */
const freezer = (tag: number) => `import { spawn } from "node:child_process"
spawn("sleep", ["${tag}.1"], { stdio: "ignore" })
spawn("sh", ["-c", "sleep ${tag}.2 & wait"], { stdio: ["ignore", "ignore", "inherit"] })
spawn("sh", ["-c", "sleep ${tag}.3"], { stdio: "ignore", detached: true })
spawn("sh", ["-c", "sleep ${tag}.4; :", "anvil-watchdog"], { stdio: "ignore" })
while (true) {}
export default []
`

const sandbox = (tag: number) => {
  const root = project({ "notes.txt": "one\n" })
  const base = tempDir("anvil-watchdog-exit-")
  const server = fakeOpenAI([{ text: "never asked" }])
  servers.push(server)
  const env = {
    XDG_CONFIG_HOME: join(base, "config"),
    XDG_CACHE_HOME: join(base, "cache"),
    HOME: join(base, "home"),
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-test",
    ANVIL_MODEL: "openai/gpt-test",
  }
  mkdirSync(env.HOME, { recursive: true })
  writeTree(join(env.XDG_CONFIG_HOME, "anvil"), { "anvil.json": JSON.stringify({ plugins: { load_timeout_ms: 500 } }), "plugins/freezer.ts": freezer(tag) })
  return { root, env }
}

const left = (tag: number) => processesMatching(`sleep ${tag}\\.`)

describe("after the plugin watchdog ended anvil (exit 8)", () => {
  test("anvil tool: the frozen plugin's processes are gone, its own group's, the one holding stderr and one named anvil-watchdog too", async () => {
    const tag = nextTag++
    const { root, env } = sandbox(tag)
    // runBinary reads stdout and stderr to their end: a process left holding stderr would keep it waiting.
    const r = await runBinary(["tool", "read", JSON.stringify({ path: "notes.txt" })], { cwd: root, env })
    expect(r.code).toBe(8)
    expect(r.stderr).toContain("plugin 'freezer' (loading) has kept anvil's only thread busy")
    expect(await waitUntil(() => left(tag).length === 0, 1000)).toBe(true)
  })

  test("anvil run -f json: one result on stdout with reason plugin_frozen, exit_code 8 and the next step; no process left", async () => {
    const tag = nextTag++
    const { root, env } = sandbox(tag)
    const before = Date.now()
    const r = await runBinary(["run", "-f", "json", "go"], { cwd: root, env })
    const after = Date.now()
    expect(r.code).toBe(8)
    const result = JSON.parse(r.stdout)
    // The time of the freeze, which cannot come before the load's 500 ms limit and the watchdog's 2 s past it.
    expect(Date.parse(result.timestamp)).toBeGreaterThanOrEqual(before + 2500)
    expect(Date.parse(result.timestamp)).toBeLessThanOrEqual(after)
    expect(result).toMatchObject({ type: "result", subtype: "error_during_execution", is_error: true, reason: "plugin_frozen", exit_code: 8 })
    expect(result.errors[0]).toContain("plugin 'freezer' (loading) has kept anvil's only thread busy")
    expect(result.errors[0]).toContain('"plugins.disabled": ["freezer"]')
    expect(await waitUntil(() => left(tag).length === 0, 1000)).toBe(true)
  })

  test("anvil run -f stream-json: a plugins system line, then the same result last", async () => {
    const tag = nextTag++
    const { root, env } = sandbox(tag)
    const r = await runBinary(["run", "-f", "stream-json", "go"], { cwd: root, env })
    expect(r.code).toBe(8)
    const lines = jsonLines(r.stdout)
    expect(lines.at(-2)).toMatchObject({ type: "system", subtype: "plugins" })
    expect(lines.at(-1)).toMatchObject({ type: "result", is_error: true, reason: "plugin_frozen", exit_code: 8 })
    expect(lines.at(-1).errors[0]).toBe(lines.at(-2).message)
    expect(await waitUntil(() => left(tag).length === 0, 1000)).toBe(true)
  })

  test("the Agent SDK's protocol (-p, stream-json in and out): the same two lines end the output", async () => {
    const tag = nextTag++
    const { root, env } = sandbox(tag)
    const input = `${JSON.stringify({ type: "user", message: { role: "user", content: "go" } })}\n`
    const r = await runBinary(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd: root, env, stdin: input })
    expect(r.code).toBe(8)
    const lines = jsonLines(r.stdout)
    expect(lines.at(-2)).toMatchObject({ type: "system", subtype: "plugins" })
    expect(lines.at(-1)).toMatchObject({ type: "result", is_error: true, reason: "plugin_frozen", exit_code: 8 })
    expect(await waitUntil(() => left(tag).length === 0, 1000)).toBe(true)
  })
})
