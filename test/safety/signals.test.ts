import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines } from "../support/anvil-cli.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"
import { anvilBinary, processesMatching, waitUntil } from "./binary.ts"

// Signals to the compiled binary while a bash command runs a tree of processes, some of which left its
// process group (setsid, nohup) or ignore TERM: afterwards none of them may be left, and anvil must have
// written its final line and exited 128 + the signal's number.
setDefaultTimeout(60_000)

let binary = ""
const servers: Array<FakeServer> = []
beforeAll(async () => {
  binary = await anvilBinary()
}, 120_000)
afterAll(() => servers.forEach((s) => s.stop()))

const CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const

/** A command whose processes are all named by `sleep <tag>.<n>`: one leaves by setsid, one by nohup, one ignores TERM. */
const tree = (tag: number, ignoreTerm = true) =>
  `setsid sleep ${tag}.1 & nohup sleep ${tag}.2 >/dev/null 2>&1 & ` +
  (ignoreTerm ? `sh -c 'trap "" TERM; sleep ${tag}.3' & ` : "") +
  `sleep ${tag}.4`
const treeSize = (ignoreTerm = true) => (ignoreTerm ? 4 : 3)
const left = (tag: number) => processesMatching(`sleep ${tag}\\.`)

const spawnAnvil = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}, stdin: "ignore" | "pipe" = "ignore") =>
  Bun.spawn([binary, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, NO_COLOR: "1", ...env },
    stdin,
    stdout: "pipe",
    stderr: "pipe",
  })

const openai = (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
}

let nextTag = 4100 + (process.pid % 500) * 10

describe("anvil tool bash under SIGINT, SIGTERM, SIGHUP", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    test(`${signal}: a CANCELLED envelope, exit ${CODES[signal]}, no process left (setsid, nohup, TERM ignored)`, async () => {
      const tag = nextTag++
      const root = project({})
      const proc = spawnAnvil(["tool", "bash", JSON.stringify({ command: tree(tag) })], root)
      expect(await waitUntil(() => left(tag).length >= treeSize())).toBe(true)
      proc.kill(signal)
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      expect(code).toBe(CODES[signal])
      const envelope = JSON.parse(out)
      expect(envelope).toMatchObject({ status: "error", error: { code: "CANCELLED" } })
      expect(envelope.error.message).toContain(signal)
      expect(envelope.text).toMatch(/Code: CANCELLED\nMessage: .*\nRetryable: False/)
      expect(left(tag)).toEqual([])
    })
  }
})

describe("anvil run under signals", () => {
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    test(`${signal}: stream-json ends with result is_error/interrupted, exit ${CODES[signal]}, no process left`, async () => {
      const tag = nextTag++
      const root = project({})
      const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag, false) } }] }, { text: "never" }])
      const proc = spawnAnvil(["run", "--yes", "-f", "stream-json", "go"], root, env)
      expect(await waitUntil(() => left(tag).length >= treeSize(false))).toBe(true)
      proc.kill(signal)
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      expect(code).toBe(CODES[signal])
      const last = jsonLines(out).at(-1)
      expect(last).toMatchObject({ type: "result", is_error: true, reason: "interrupted", signal })
      expect(left(tag)).toEqual([])
    })
  }

  test("text mode: a clear last line on stderr", async () => {
    const tag = nextTag++
    const root = project({})
    const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag, false) } }] }, { text: "never" }])
    const proc = spawnAnvil(["run", "--yes", "go"], root, env)
    expect(await waitUntil(() => left(tag).length >= treeSize(false))).toBe(true)
    proc.kill("SIGTERM")
    const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
    expect(code).toBe(143)
    expect(err.trim().split("\n").at(-1)).toContain("interrupted by SIGTERM")
    expect(left(tag)).toEqual([])
  })

  test("a second Ctrl-C arriving early KILLs at once (no TERM grace), still writes the result, exits 130", async () => {
    const tag = nextTag++
    const root = project({})
    const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag) } }] }, { text: "never" }])
    const proc = spawnAnvil(["run", "--yes", "-f", "stream-json", "go"], root, env)
    expect(await waitUntil(() => left(tag).length >= treeSize())).toBe(true)
    const started = performance.now()
    proc.kill("SIGINT")
    await Bun.sleep(50)
    proc.kill("SIGINT")
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    // The default grace between TERM and KILL is 3 s: the second Ctrl-C does not wait for it.
    expect(performance.now() - started).toBeLessThan(2500)
    expect(code).toBe(130)
    expect(jsonLines(out).at(-1)).toMatchObject({ type: "result", is_error: true, reason: "interrupted", signal: "SIGINT" })
    expect(left(tag)).toEqual([])
  })
})

describe("anvil chat under signals", () => {
  test("SIGTERM while a turn runs (input piped): exit 143, a last line, no process left", async () => {
    const tag = nextTag++
    const root = project({})
    const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag, false) } }] }, { text: "never" }])
    const proc = spawnAnvil(["chat", "--yes"], root, env, "pipe")
    proc.stdin!.write("go\n")
    proc.stdin!.flush()
    expect(await waitUntil(() => left(tag).length >= treeSize(false))).toBe(true)
    proc.kill("SIGTERM")
    const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
    expect(code).toBe(143)
    expect(err).toContain("SIGTERM")
    expect(left(tag)).toEqual([])
  })

  test("Ctrl-C twice early cancels the turn and KILLs its processes at once; the chat goes on", async () => {
    const tag = nextTag++
    const root = project({})
    const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag) } }] }, { text: "still here" }])
    // Unconfined: in the command sandbox TERM already ends the whole PID namespace, so the turn may be
    // over before the second Ctrl-C (which would then quit the chat) and there is no grace left to skip.
    const proc = spawnAnvil(["chat", "--yes", "--sandbox", "off"], root, env, "pipe")
    proc.stdin!.write("go\n")
    proc.stdin!.flush()
    expect(await waitUntil(() => left(tag).length >= treeSize())).toBe(true)
    proc.kill("SIGINT")
    await Bun.sleep(50)
    proc.kill("SIGINT")
    expect(await waitUntil(() => left(tag).length === 0, 2500)).toBe(true)
    proc.stdin!.write("and now?\n")
    proc.stdin!.end()
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(code).toBe(0)
    expect(out).toContain("still here")
  })

  const tmuxBin = Bun.which("tmux")
  test.skipIf(!tmuxBin)("in a terminal (tmux): closing the terminal (SIGHUP) during a turn leaves no process", async () => {
    const tag = nextTag++
    const root = project({})
    const env = openai([{ tool_calls: [{ name: "bash", arguments: { command: tree(tag, false) } }] }, { text: "never" }])
    const socket = `anvil-safety-${process.pid}`
    const tmux = (...args: Array<string>) => Bun.spawnSync([tmuxBin!, "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" })
    try {
      const vars = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", "NO_COLOR=1", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)]
      const command = ["env", "-i", ...vars, binary, "chat", "--yes"].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
      tmux("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", "-c", root, `${command}; echo "[exited $?]"; sleep 30`)
      const screen = () => tmux("capture-pane", "-p", "-t", "chat").stdout.toString()
      if (!(await waitUntil(() => screen().includes("›"), 20_000))) throw new Error(`no prompt; screen:\n${screen()}`)
      tmux("send-keys", "-t", "chat", "go", "Enter")
      expect(await waitUntil(() => left(tag).length >= treeSize(false))).toBe(true)
      tmux("kill-session", "-t", "chat")
      const gone = await waitUntil(() => left(tag).length === 0 && processesMatching(`${binary} chat`).length === 0, 5000)
      if (!gone) console.log("LEFT", Bun.spawnSync(["ps", "-o", "pid,pgid,sid,stat,args", "-p", [...left(tag), ...processesMatching(`${binary} chat`)].join(",")]).stdout.toString())
      expect(gone).toBe(true)
    } finally {
      tmux("kill-server")
    }
  })
})
