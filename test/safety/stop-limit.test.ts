import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"
import { anvilBinary, processesMatching, waitUntil } from "./binary.ts"

// The stop after a first signal has a limit (src/cli/stop-backstop.ts): a plugin's session.end hook that never
// answers (its own limit set to ten minutes) keeps the session's close waiting; past ANVIL_STOP_WAIT anvil KILLs
// what it started (a background command still running, the plugin's own children) and exits with the signal's status.
setDefaultTimeout(60_000)

let binary = ""
const servers: Array<FakeServer> = []
beforeAll(async () => {
  binary = await anvilBinary()
}, 120_000)
afterAll(() => servers.forEach((s) => s.stop()))

/** The hanging plugin, with two children of its own: one holding anvil's stderr, one in a group of its own. */
const hang = (tag: number) => `import { spawn } from "node:child_process"
import { definePlugin } from "anvil/plugin"
spawn("sh", ["-c", "sleep ${tag}.3 & wait"], { stdio: ["ignore", "ignore", "inherit"] })
spawn("sleep", ["${tag}.4"], { stdio: "ignore", detached: true })
export default definePlugin({ name: "hang", api: 1, hooks: { "session.end": () => new Promise(() => {}) } })
`

const setup = (tag: number) => {
  const root = project({})
  const base = tempDir("anvil-stop-env-")
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  mkdirSync(env.HOME, { recursive: true })
  writeTree(join(env.XDG_CONFIG_HOME, "anvil"), { "anvil.json": JSON.stringify({ plugins: { hook_timeout_ms: 600_000 } }), "plugins/hang.ts": hang(tag) })
  // A background command that lives on (its own session), then a foreground one the signal cancels.
  const server = fakeOpenAI([
    { tool_calls: [{ name: "bash", arguments: { command: `setsid sleep ${tag}.1`, run_in_background: true } }] },
    { tool_calls: [{ name: "bash", arguments: { command: `sleep ${tag}.2` } }] },
    { text: "never" },
  ])
  servers.push(server)
  return { root, env: { ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
}

let nextTag = 5200 + (process.pid % 500) * 10
const left = (tag: number) => processesMatching(`sleep ${tag}\\.`)

describe("the stop after a signal has a limit", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    test(`${signal} (no terminal): a close that never ends is cut at ANVIL_STOP_WAIT; exit ${code}, one JSON result, no process left`, async () => {
      const tag = nextTag++
      const { root, env } = setup(tag)
      const proc = Bun.spawn([binary, "run", "--yes", "--sandbox", "off", "-f", "json", "go"], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", ANVIL_STOP_WAIT: "1.5", ...env },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      })
      // The command's two and the plugin's two (whose first holds stderr: reading it to its end needs it gone).
      expect(await waitUntil(() => left(tag).length >= 4)).toBe(true)
      proc.kill(signal)
      const [out, err, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect(exit).toBe(code)
      // The turn wrote its result before the close hung; nothing more is written after it.
      expect(JSON.parse(out)).toMatchObject({ type: "result", is_error: true, reason: "interrupted", signal })
      expect(err).toContain(`anvil: ${signal}: the cancelled work had not ended after`)
      expect(await waitUntil(() => left(tag).length === 0, 3000)).toBe(true)
    })
  }
})
