import { describe, expect, test } from "bun:test"
import { cagesAvailable } from "../../src/process/tree-cgroup.ts"
import type { FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir } from "../support/harness.ts"
import { anvilBinary, waitUntil } from "../safety/binary.ts"

// A session parks the process that starts its first command in a cage (process/parked-cage.ts) once the model's
// answer starts coming, not while the session starts, where it delayed the first request.

/** anvil's children waiting as a parked cage (the shell that reads the name of its command's script). */
const parkedChildren = (pid: number): Array<number> => {
  const r = Bun.spawnSync(["pgrep", "-P", String(pid), "-f", "read -r f"], { stdout: "pipe" })
  return r.stdout.toString().split("\n").filter((l) => l.trim() !== "").map(Number)
}

/** `anvil run` against a fake model that answers with `turns`; the server stops when the run ends. */
const startRun = async (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(turns)
  const run = Bun.spawn([await anvilBinary(), "run", "--yes", "go"], {
    cwd: project({}),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir("anvil-cage-home-"), NO_COLOR: "1", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" },
    stdout: "ignore",
    stderr: "ignore",
  })
  void run.exited.finally(() => server.stop())
  return run
}

describe("the first command's cage, made on need", () => {
  test("nothing is parked until the model's answer starts; then one is, before any tool call came", async () => {
    const waiting = await startRun([{ text: "hello", delay_ms: 1500 }])
    // The session is up and its request sent: the server has not answered yet.
    await Bun.sleep(900)
    expect(parkedChildren(waiting.pid)).toEqual([])
    expect(await waiting.exited).toBe(0)

    // The answer's first frame arrives, then nothing more: no tool call has been seen.
    const answering = await startRun([{ text: "thinking", hang_after_frames: 1 }])
    const parked = await waitUntil(() => parkedChildren(answering.pid).length === 1, 5_000)
    answering.kill("SIGTERM")
    await answering.exited
    expect(parked).toBe(cagesAvailable())
  }, 180_000)
})
