import { afterAll, describe, expect, test } from "bun:test"
import { Deferred, Effect, Layer, ManagedRuntime } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeToolRuntime, type ToolServices } from "../../src/runtime.ts"
import { BackgroundShells } from "../../src/shell/background-shells.ts"
import type { BackgroundRequest, BackgroundShellsShape, MovedEnd } from "../../src/shell/background-types.ts"
import { ToolRunner } from "../../src/tool-framework/runner.ts"
import { builtinTools, project, tempDir } from "../support/harness.ts"

// A foreground command a program moves to the background (the Agent SDK's background_tasks): its output is
// readable while it runs, and a move or a stop that meets the command's own end gives one consistent answer.

const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
const fast = { tools: { bash: { drain_ms: 100, kill_grace_ms: 300 } }, sandbox: { mode: "off" } }

const runtimes: Array<ManagedRuntime.ManagedRuntime<ToolRunner | ToolServices, unknown>> = []
afterAll(async () => {
  for (const r of runtimes.splice(0)) await r.dispose()
})

/** An agent session's tool runtime; its spill folder is `spill` (a temporary one unless given). */
const session = async (root: string, spill = tempDir()) => {
  const runtime = ManagedRuntime.make(
    makeToolRuntime({ cwd: root, env: { PATH, TOOL_OUTPUT_DIR: spill }, root, tools: builtinTools, session: { id: "moved-test", interactive: true }, configOverrides: fast }) as Layer.Layer<ToolRunner | ToolServices>,
  )
  runtimes.push(runtime)
  const shells: BackgroundShellsShape = await runtime.runPromise(Effect.gen(function* () { return yield* BackgroundShells }))
  const call = async (name: string, params: Record<string, unknown>, callId?: string) =>
    (await runtime.runPromise(Effect.gen(function* () { return yield* (yield* ToolRunner).run({ name, params, ...(callId ? { callId } : {}) }, { taskToolAvailable: false }) }))).envelope as any
  return { runtime, shells, call }
}

/** A request as the bash tool makes one; the run itself is the test's. */
const request = (callId: string): BackgroundRequest => ({
  command: "true",
  workdir: ".",
  shell: "/bin/sh",
  env: { PATH },
  timeoutMs: 60_000,
  killGraceMs: 300,
  drainMs: 100,
  unconfined: true,
  shown: `run ${callId}`,
  callId,
  maxOutputBytes: 1 << 20,
})

const endOf = (text: string): MovedEnd => ({ text, exitCode: 0, signal: null, timedOut: false, refusals: [] })

/** Moves call `callId`'s command once it runs (the call starts it a moment after it is made). */
const moveWhenRunning = async (s: Awaited<ReturnType<typeof session>>, callId: string) => {
  for (let i = 0; i < 500; i++) {
    if ((await s.runtime.runPromise(s.shells.moveToBackground(callId))) === 1) return
    await Bun.sleep(10)
  }
  throw new Error(`${callId} never ran`)
}

describe("a moved command's output while it runs", () => {
  test("bash_output shows stdout and stderr as they come, before the command ends; the end brings the rest and the exit", async () => {
    const root = project()
    const s = await session(root)
    const call = s.call("bash", { command: "echo first; echo warn >&2; while [ ! -e go ]; do sleep 0.02; done; echo second; exit 4" }, "m1")
    await moveWhenRunning(s, "m1")
    const moved = await call
    expect(moved.data).toMatchObject({ moved: true, status: "running" })
    expect(moved.text).toContain("as it prints it")
    // Read until the first lines are there: the command waits for the go file, so it still runs.
    let seen = ""
    for (let i = 0; i < 500 && !(seen.includes("first") && seen.includes("warn")); i++) {
      const out = await s.call("bash_output", { id: moved.data.id })
      expect(out.data.status).toBe("running")
      seen += out.data.output
      await Bun.sleep(10)
    }
    expect(seen).toContain("first\n")
    expect(seen).toContain("warn")
    // The program's look (get_task_output) sees it too, without moving the model's reads on.
    const tail = await s.runtime.runPromise(s.shells.tail(moved.data.id, 8192))
    expect(tail.text).toContain("first")
    writeFileSync(join(root, "go"), "")
    const rest = await s.call("bash_output", { id: moved.data.id, block: true, timeout_ms: 10_000 })
    expect(rest.data).toMatchObject({ status: "failed", exit_code: 4 })
    expect(rest.data.output).toBe("second")
    expect(rest.text).toContain("exited with code 4")
  })
})

describe("a move or a stop that meets the command's end", () => {
  test("a stop arriving as the run finishes keeps the run's answer: completed, not stopped", async () => {
    const s = await session(project())
    const gate = await Effect.runPromise(Deferred.make<string>())
    let id = ""
    let stopping: Promise<unknown> | undefined
    // The stop is sent from inside the run's end, the moment its answer is being recorded.
    const ended = (answer: string): MovedEnd => {
      stopping = s.runtime.runPromise(s.shells.stop(id, "host"))
      return endOf(`${answer}\n`)
    }
    const outcome = s.runtime.runPromise(s.shells.foreground(request("r1"), Deferred.await(gate), ended))
    await moveWhenRunning(s, "r1")
    const first = await outcome
    if (!("moved" in first)) throw new Error("not moved")
    id = first.moved.id
    await Effect.runPromise(Deferred.succeed(gate, "the answer"))
    const read = await s.runtime.runPromise(s.shells.read(id, { waitMs: 10_000, budgetBytes: 4096, budgetLines: 100 }))
    await stopping
    expect(read.shell.status).toBe("completed")
    expect(read.shell.end).toMatchObject({ stopped: false, exitCode: 0 })
    expect(read.shown.text).toBe("the answer")
  })

  test("a move that cannot take the command (no output file can be made) is not counted: the call answers when the command ends", async () => {
    // The spill folder is a file: no background output file can be made, so the call waits for its command.
    const root = project({ "not-a-folder": "x\n" })
    const s = await session(root, join(root, "not-a-folder"))
    const gate = await Effect.runPromise(Deferred.make<string>())
    const running = Promise.withResolvers<void>()
    const run = Effect.andThen(Effect.sync(() => running.resolve()), Deferred.await(gate))
    const outcome = s.runtime.runPromise(s.shells.foreground(request("r2"), run, () => endOf("")))
    await running.promise
    const counted = await Effect.runPromise(s.shells.moveToBackground("r2"))
    Effect.runSync(Deferred.succeed(gate, "done"))
    expect(await outcome).toEqual({ done: "done" })
    expect(counted).toBe(0)
    expect(s.shells.list()).toEqual([])
  })
})
