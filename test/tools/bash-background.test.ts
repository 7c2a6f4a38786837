import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeToolRuntime, type ToolServices } from "../../src/runtime.ts"
import { BackgroundShells } from "../../src/shell/background-shells.ts"
import { ToolRunner } from "../../src/tool-framework/runner.ts"
import { assertEnvelope, builtinTools, callTool, project, tempDir } from "../support/harness.ts"

// Bash's run_in_background through the tool pipeline of an agent session: the call answers at once with an id,
// bash_output reads what is new, bash_stop ends the command, and the session's end ends what still runs.

const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
// A HOME of the test's own: what anvil keeps outside the project (its cache, spill files) stays out of the real one.
const HOME = tempDir("anvil-bg-home-")
const env = { PATH, HOME }
const fast = { tools: { bash: { drain_ms: 100, kill_grace_ms: 300 } }, sandbox: { mode: "off" } }

const runtimes: Array<ManagedRuntime.ManagedRuntime<ToolRunner | ToolServices, unknown>> = []
afterAll(async () => {
  for (const r of runtimes.splice(0)) await r.dispose()
})

/** An agent session's tool runtime (it outlives each call, as a background command needs). */
const agentSession = (root: string, overrides: Record<string, unknown> = {}) => {
  const runtime = ManagedRuntime.make(
    makeToolRuntime({ cwd: root, env, root, tools: builtinTools, session: { id: "bg-test", interactive: true }, configOverrides: { ...fast, ...overrides } }) as Layer.Layer<
      ToolRunner | ToolServices
    >,
  )
  runtimes.push(runtime)
  const call = async (name: string, params: Record<string, unknown>) => {
    const outcome = await runtime.runPromise(Effect.gen(function* () { return yield* (yield* ToolRunner).run({ name, params }, { taskToolAvailable: false }) }))
    assertEnvelope(outcome.envelope)
    return outcome.envelope as { status: string; data: any; text: string; error?: { code: string; message: string } }
  }
  return { call, runtime, dispose: () => runtime.dispose() }
}

const alive = (marker: string): boolean => {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim() !== ""
  } catch {
    return false
  }
}

const uniqueSleep = () => `sleep ${(30 + Math.random() * 10).toFixed(4)}`

describe("bash run_in_background", () => {
  test("answers at once with an id; bash_output blocks until the end and returns stdout and stderr in order, then nothing new", async () => {
    const root = project()
    const s = agentSession(root)
    // The command cannot end before the test lets it (a file it waits for): the call's answer came while it ran.
    const bg = await s.call("bash", { command: "echo one; echo two >&2; until [ -e go ]; do sleep 0.02; done; echo three; exit 3", run_in_background: true })
    expect(bg.status).toBe("success")
    const id = bg.data.id as string
    expect(id).toMatch(/^bash_[0-9a-f]{8}$/)
    expect(bg.text).toContain(`Started in the background: ${id}`)
    expect(bg.data.status).toBe("running")
    writeFileSync(join(root, "go"), "")
    const out = await s.call("bash_output", { id, block: true, timeout_ms: 5000 })
    expect(out.data).toMatchObject({ status: "failed", exit_code: 3, output: "one\ntwo\nthree" })
    expect(out.text).toContain(": exited with code 3")
    expect(readFileSync(join(root, bg.data.output_path), "utf8")).toBe("one\ntwo\nthree\n")
    const again = await s.call("bash_output", { id })
    expect(again.text).toContain("(no new output)")
    expect(again.data.new_bytes).toBe(0)
  })

  test("Claude Code's names and fields reach the same tools: TaskOutput (blocks by default), BashOutput's filter, KillShell and TaskStop", async () => {
    const root = project()
    const s = agentSession(root)
    const bg = await s.call("Bash", { command: "seq 1 30; sleep 0.2", run_in_background: true, description: "count" })
    const id = bg.data.id as string
    const filtered = await s.call("BashOutput", { bash_id: id, filter: "^2" })
    // Lines printed so far that start with 2 (seq printed all 30 before sleeping, or some of them).
    for (const line of String(filtered.data.output).split("\n").filter((l) => l !== "")) expect(line.startsWith("2")).toBe(true)
    const done = await s.call("TaskOutput", { task_id: id })
    expect(done.data.status).toBe("completed")
    const sleeper = uniqueSleep()
    const long = await s.call("Bash", { command: sleeper, run_in_background: true })
    for (let i = 0; i < 50 && !alive(sleeper); i++) await Bun.sleep(20)
    expect(alive(sleeper)).toBe(true)
    const killed = await s.call("KillShell", { shell_id: long.data.id })
    expect(killed.data).toMatchObject({ status: "killed", stopped: true })
    expect(alive(sleeper)).toBe(false)
    const twice = await s.call("TaskStop", { task_id: long.data.id })
    expect(twice.text).toContain("had already ended")
  })

  test("new output longer than the budget is shown head and tail, with a Read of the part left out in the file's numbering", async () => {
    const root = project()
    const s = agentSession(root, { tools: { bash: { drain_ms: 100, kill_grace_ms: 300, max_output_chars: 2000 } } })
    const bg = await s.call("bash", { command: "seq 1 20000", run_in_background: true })
    const out = await s.call("bash_output", { id: bg.data.id, block: true })
    expect(out.status).toBe("partial")
    expect(out.data.truncated).toBe(true)
    expect(out.text).toContain("\n1\n2\n")
    expect(out.text).toContain("20000")
    expect(out.text).toContain("omitted")
    const file = readFileSync(join(root, bg.data.output_path), "utf8").split("\n")
    expect(file.length).toBe(20001)
    // The Read hint starts at the first line left out: the line after the last one shown before the marker.
    const offset = Number(new RegExp(`Read\\(path="${bg.data.output_path.replace(/\./g, "\\.")}", offset=(\\d+)`).exec(out.text)?.[1])
    expect(out.text).toContain(`\n${file[offset - 1]}\n[… `)
    expect(file[offset]).toBe(String(offset + 1))
  })

  test("a timeout ends it; an unknown id names the known ones; the end of the session ends what still runs", async () => {
    const root = project()
    const s = agentSession(root)
    const timed = await s.call("bash", { command: "sleep 5", run_in_background: true, timeout_ms: 300 })
    const out = await s.call("bash_output", { id: timed.data.id, block: true, timeout_ms: 5000 })
    expect(out.data.status).toBe("timed_out")
    const unknown = await s.call("bash_output", { id: "bash_nothere" })
    expect(unknown.error?.code).toBe("NOT_FOUND")
    expect(unknown.error?.message).toContain(timed.data.id)
    const badFilter = await s.call("bash_output", { id: timed.data.id, filter: "([" })
    expect(badFilter.error?.code).toBe("INVALID_PARAM")
    const sleeper = uniqueSleep()
    await s.call("bash", { command: sleeper, run_in_background: true })
    for (let i = 0; i < 50 && !alive(sleeper); i++) await Bun.sleep(20)
    expect(alive(sleeper)).toBe(true)
    await s.dispose()
    expect(alive(sleeper)).toBe(false)
  })

  test("a program that cannot be started fails the call; a call of one tool (anvil tool) refuses run_in_background", async () => {
    const root = project()
    const s = agentSession(root)
    const missing = await s.call("bash", { args: ["no-such-program-anvil"], run_in_background: true })
    expect(missing.error?.code).toBe("NOT_FOUND")
    const direct = await callTool(root, "bash", { command: "sleep 1", run_in_background: true }, { env, configOverrides: fast })
    expect(direct.envelope.status).toBe("error")
    expect((direct.envelope as any).error.code).toBe("INVALID_PARAM")
    expect((direct.envelope as any).error.message).toContain("run_in_background")
  })

  test("a foreground command a program moves to the background answers at once, shown in its own working folder; its output is read from its output file", async () => {
    const root = project({ "sub/x.txt": "x\n" })
    const s = agentSession(root)
    const shells = await s.runtime.runPromise(Effect.gen(function* () { return yield* BackgroundShells }))
    const call = s.runtime.runPromise(
      Effect.gen(function* () {
        return yield* (yield* ToolRunner).run({ name: "bash", params: { command: "sleep 1; echo in-$(basename $PWD)", workdir: "sub" }, callId: "f1" }, { taskToolAvailable: false })
      }),
    )
    // The call starts its command a moment after it is made: asked again until it runs.
    for (let i = 0; i < 500 && (await s.runtime.runPromise(shells.moveToBackground("f1"))) === 0; i++) await Bun.sleep(10)
    const moved = (await call).envelope as any
    // Answered while the command still ran.
    expect(moved.data).toMatchObject({ moved: true, status: "running" })
    expect(shells.list().find((j) => j.id === moved.data.id)?.cwd).toBe("sub")
    const out = await s.call("bash_output", { id: moved.data.id, block: true, timeout_ms: 5000 })
    expect(out.data.status).toBe("completed")
    expect(out.data.output).toContain("in-sub")
  })
})
