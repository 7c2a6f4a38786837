import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/anvil-binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Plugin code that never yields anvil's thread (a synchronous loop), through the compiled binary: the watchdog
// thread (src/plugins/watchdog.ts) reports it, naming the plugin, and ends anvil with exit code 8.
setDefaultTimeout(120_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const LIMITS = { plugins: { call_timeout_ms: 500, hook_timeout_ms: 500, load_timeout_ms: 500 } }

const sandbox = (plugins: Record<string, string>, limits: object = LIMITS) => {
  const root = project({ "notes.txt": "one\n" })
  const base = tempDir("anvil-watchdog-env-")
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  mkdirSync(env.HOME, { recursive: true })
  writeTree(join(env.XDG_CONFIG_HOME, "anvil"), { "anvil.json": JSON.stringify(limits) })
  writeTree(join(env.XDG_CONFIG_HOME, "anvil", "plugins"), plugins)
  const anvil = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => runBinary(args, { cwd: root, env: { ...env, ...extra } })
  return { root, env, anvil }
}

const busy = `import { definePlugin, defineTool } from "anvil/plugin"
import { Effect, Schema } from "effect"
const tool = (name: string, run: () => unknown) => defineTool({ name, description: name, parameters: Schema.Struct({}), readOnly: true, run: run as never })
export default definePlugin({
  name: "busy",
  api: 1,
  tools: [
    tool("spin", () => { while (true) {} }),
    tool("spin_after_await", async () => { await new Promise((r) => setTimeout(r, 5)); while (true) {} }),
    tool("spin_in_effect", () => Effect.sleep("5 millis").pipe(Effect.andThen(Effect.sync(() => { while (true) {} })))),
    tool("fine", () => "fine"),
    tool("child_sync", () => "child " + Bun.spawnSync(["sleep", "4"]).exitCode),
  ],
})
`

describe("a plugin that never yields anvil's thread", () => {
  test("in a tool (before or after an await, or inside its Effect): TIMEOUT envelope naming it, exit 8; other calls are untouched", async () => {
    const s = sandbox({ "busy.ts": busy })
    for (const name of ["spin", "spin_after_await", "spin_in_effect"]) {
      const r = await s.anvil(["tool", name, "{}"])
      expect(r.code).toBe(8)
      const envelope = JSON.parse(r.stdout)
      expect(envelope).toMatchObject({ status: "error", error: { code: "TIMEOUT", retryable: false } })
      expect(envelope.error.message).toContain(`plugin 'busy' (tool ${name}) has kept anvil's only thread busy for`)
      expect(envelope.error.message).toContain("past its time limit of 500 ms (plugins.call_timeout_ms)")
      expect(envelope.error.message).toContain('"plugins.disabled": ["busy"]')
      expect(r.stderr).toContain(`anvil: plugin 'busy' (tool ${name}) has kept`)
    }
    // --text prints the message as text.
    const text = await s.anvil(["tool", "spin", "{}", "--text"])
    expect(text.code).toBe(8)
    expect(text.stdout).toContain("Code: TIMEOUT\nMessage: plugin 'busy' (tool spin) has kept anvil's only thread busy")
    // Waiting for a synchronous child process past the limit is not computing: it answers late, anvil goes on.
    const waited = await s.anvil(["tool", "child_sync", "{}"])
    expect(waited.stderr).not.toContain("anvil's only thread")
    expect(waited.code).toBe(0)
    expect(JSON.parse(waited.stdout).data.output).toBe("child 0")
    const fine = await s.anvil(["tool", "fine", "{}"])
    expect(fine.code).toBe(0)
    expect(JSON.parse(fine.stdout).data.output).toBe("fine")
  })

  test("at import, beside a good plugin: named once loaded alone, skipped after two freezes in a row; the good one works throughout", async () => {
    const s = sandbox({
      "aaa-good.ts": `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default defineTool({ name: "good", description: "good", parameters: Schema.Struct({}), readOnly: true, run: () => "good" })\n`,
      "spin-load.ts": "while (true) {}\nexport default []\n",
    })
    const memory = join(s.env.XDG_CACHE_HOME, "anvil", "plugins", "load-timeouts.json")
    // Both were loading: the watchdog cannot tell which froze, says so, and the next run loads each alone.
    const first = await s.anvil(["tool", "good", "{}"])
    expect(first.code).toBe(8)
    expect(first.stderr).toContain("one of plugin 'aaa-good' (loading), or plugin 'spin-load' (loading)")
    expect(first.stderr).toContain("The next run loads each of them alone, to tell which.")
    const second = await s.anvil(["tool", "good", "{}"])
    expect(second.code).toBe(8)
    expect(second.stderr).toContain("anvil: plugin 'spin-load' (loading) has kept anvil's only thread busy")
    expect(second.stderr).toContain("(plugins.load_timeout_ms)")
    expect(JSON.parse(second.stdout).error.code).toBe("TIMEOUT")
    expect(Object.keys(JSON.parse(readFileSync(memory, "utf8")))).toEqual([join(s.env.XDG_CONFIG_HOME, "anvil", "plugins", "spin-load.ts")])
    // Counted like a load time-out: once more, then it is skipped with the reason.
    expect((await s.anvil(["tool", "good", "{}"])).code).toBe(8)
    const skipped = await s.anvil(["tool", "good", "{}"])
    expect(skipped.code).toBe(0)
    expect(JSON.parse(skipped.stdout).data.output).toBe("good")
    expect(skipped.stderr).toContain("plugin 'spin-load' was not loaded: timed out 2 times in a row while loading")
    expect(skipped.stderr).toContain("its import kept anvil's thread busy past plugins.load_timeout_ms (500 ms)")
  })

  test("in a hook during anvil run --format stream-json: a plugins event and stderr name it, exit 8", async () => {
    const s = sandbox({
      "hook-spin.ts": `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ name: "hook-spin", api: 1, hooks: { "tool.before": (e: any) => { if (e.tool === "read") while (true) {} } } })\n`,
      "busy.ts": busy,
    })
    const server = fakeOpenAI([{ tool_calls: [{ name: "fine", arguments: {}, id: "c1" }] }, { tool_calls: [{ name: "read", arguments: { path: "notes.txt" }, id: "c2" }] }, { text: "done" }])
    servers.push(server)
    const r = await s.anvil(["run", "--format", "stream-json", "go"], { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" })
    expect(r.code).toBe(8)
    const events = jsonLines(r.stdout)
    // The call before it ran as usual.
    expect(toolResults(events)[0].envelope.data.output).toBe("fine")
    const last = events.at(-2) as { type: string; subtype: string; message: string }
    expect([last.type, last.subtype]).toEqual(["system", "plugins"])
    expect(events.at(-1)).toMatchObject({ type: "result", is_error: true, reason: "plugin_frozen", exit_code: 8, errors: [last.message] })
    // The session had opened: its result carries the session's id, as every message before it.
    expect(events.at(-1).session_id).toBe(events[0].session_id)
    expect(last.message).toContain("plugin 'hook-spin' (hook tool.before) has kept anvil's only thread busy")
    expect(last.message).toContain("(plugins.hook_timeout_ms)")
    expect(r.stderr).toContain("anvil: plugin 'hook-spin' (hook tool.before) has kept")
  })

  test("a process stopped while a plugin computes (Ctrl-Z, a machine asleep) is not blamed for the stop: the call finishes", async () => {
    // 1 s of CPU under a 10 s limit, stopped for 14 s: by the clock the thread was stuck past the limit and its grace.
    // The CPU second may take several on a loaded machine (it did: 2 s of CPU under a 6 s limit took over 8 s at a
    // load of 18 on 2 cores), hence the wide margin: the stop alone must not be what ends the call.
    const loop = `const t = process.cpuUsage().user; let x = 0; while (process.cpuUsage().user - t < 1_000_000) for (let i = 0; i < 1e6; i++) x += i; return "computed"`
    const cpu = `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default defineTool({ name: "cpu", description: "cpu", parameters: Schema.Struct({}), readOnly: true, run: () => { require("node:fs").writeFileSync(process.env.MARK!, "started"); ${loop} } })\n`
    const s = sandbox({ "cpu.ts": cpu }, { plugins: { call_timeout_ms: 10_000 } })
    const mark = join(tempDir("anvil-watchdog-mark-"), "started")
    const proc = Bun.spawn([await anvilBinary(), "tool", "cpu", "{}"], { cwd: s.root, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MARK: mark, ...s.env }, stdout: "pipe", stderr: "pipe" })
    // Stopped once the plugin's loop runs.
    while (!existsSync(mark)) await Bun.sleep(20)
    await Bun.sleep(200)
    proc.kill("SIGSTOP")
    await Bun.sleep(14_000)
    proc.kill("SIGCONT")
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect(stderr).not.toContain("anvil's only thread")
    expect(code).toBe(0)
    expect(JSON.parse(stdout).data.output).toBe("computed")
  })
})
