import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runAnvil, runProcess } from "../support/anvil-cli.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// A session open in one anvil is not appended to by another (their turns would interleave into a history no
// model server accepts), and a prune does not remove it while it runs.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts")

/** Waits until the fake server has received `n` requests (the run in the background reached its model call). */
const requestsReached = async (server: FakeServer, n: number) => {
  while (server.requests.length < n) await Bun.sleep(20)
}

const sessionFiles = (root: string) => readdirSync(join(root, ".anvil", "sessions")).filter((f) => f.endsWith(".jsonl"))

describe("a session open in another anvil", () => {
  test("--session and --continue refuse it (exit 3, saying why); prune keeps it; the file stays one coherent history", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const server = fakeOpenAI([
      { text: "first" },
      // The second run's turn: a command that waits until the test has tried the other runs, then an answer.
      { tool_calls: [{ name: "bash", arguments: { command: "while [ ! -e go ]; do sleep 0.05; done" }, id: "b1" }] },
      { text: "second" },
      { text: "third" },
    ])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const first = await runAnvil(["run", "-f", "json", "start"], { cwd: root, env })
    expect(first.code).toBe(0)
    const id = JSON.parse(first.stdout).session_id as string

    const running = runAnvil(["run", "-f", "json", "--yes", "--session", id, "go on"], { cwd: root, env })
    await requestsReached(server, 2)

    const byId = await runAnvil(["run", "-f", "json", "--session", id, "meanwhile"], { cwd: root, env })
    expect(byId.code).toBe(3)
    expect(byId.stderr).toContain("open in another anvil process")
    expect(JSON.parse(byId.stdout)).toMatchObject({ reason: "config", is_error: true })
    const continued = await runAnvil(["run", "-f", "json", "--continue", "meanwhile"], { cwd: root, env })
    expect(continued.code).toBe(3)
    expect(continued.stderr).toContain("open in another anvil process")

    const prune = await runProcess([process.execPath, MAIN, "sessions", "prune", "--older-than", "0m"], { cwd: root })
    expect(prune.code).toBe(0)
    expect(sessionFiles(root)).toEqual([`${id}.jsonl`])

    writeFileSync(join(root, "go"), "")
    expect((await running).code).toBe(0)
    // Only the two runs that had the session wrote to it: their turns one after the other.
    const items = readFileSync(join(root, ".anvil", "sessions", `${id}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === "item" && l.item.type === "user")
      .map((l) => l.item.text)
    expect(items).toEqual(["start", "go on"])
    expect(server.requests.length).toBe(3)

    // Once it ended, the session can be continued again.
    const after = await runAnvil(["run", "-f", "json", "--continue", "after"], { cwd: root, env })
    expect(after.code).toBe(0)
    expect(JSON.parse(after.stdout).session_id).toBe(id)
    expect(existsSync(join(root, ".anvil", "sessions", `${id}.jsonl`))).toBe(true)
  })
})
