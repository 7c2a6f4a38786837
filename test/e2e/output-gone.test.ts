import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { runProcess } from "../support/anvil-cli.ts"
import { anvilBinary } from "../support/binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"
import { processesMatching, waitUntil } from "../safety/binary.ts"

// `anvil run … | head -1` and an SDK host whose program went away: once standard output has no reader, the run
// stops (the turn is cancelled, its processes are ended) and exits 141 with one line on stderr, no stack trace.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
beforeAll(() => void anvilBinary(), 120_000)

/** A model that starts a long command (named by `tag`, so the test can look for it) and would then answer. */
const longCommand = (tag: string) => {
  const server = fakeOpenAI([{ tool_calls: [{ name: "bash", arguments: { command: `sleep ${tag}; echo late` }, id: "c1" }] }, { text: "done" }])
  servers.push(server)
  return { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test", ANVIL: anvilBinary() }
}

/** Runs `anvil … | head -1` in bash: its stdout is the first line anvil wrote, then `status=` anvil's exit status. */
const pipeline = async (root: string, env: Record<string, string>, script: string) => {
  const r = await runProcess(["bash", "-c", script], { cwd: root, env })
  const stderr = readFileSync(join(root, "anvil.err"), "utf8")
  return { ...r, stderr, status: Number(/status=(\d+)/.exec(r.stdout)?.[1]) }
}

const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at .+:\d+/m)

describe("standard output's reader gone", () => {
  test("anvil run --format stream-json | head -1: the running command is ended and the run exits 141 at once", async () => {
    const root = project()
    const tag = "47.5101"
    const env = longCommand(tag)
    const r = await pipeline(root, env, `"$ANVIL" run --yes --format stream-json "wait" 2>anvil.err | head -1; echo "status=\${PIPESTATUS[0]}"`)
    expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ type: "system", subtype: "init" })
    expect(r.status).toBe(141)
    expect(r.ms).toBeLessThan(20_000)
    expect(r.stderr).toContain("the reader of standard output went away (SIGPIPE)")
    noStackTrace(r.stderr)
    expect(await waitUntil(() => processesMatching(`sleep ${tag}`).length === 0, 3000)).toBe(true)
  })

  test("SDK host (stream-json in and out) whose reader left while its input stays open: the session ends, 141", async () => {
    const root = project()
    const tag = "47.5102"
    const env = longCommand(tag)
    const user = JSON.stringify({ type: "user", message: { role: "user", content: "wait" } })
    // The input (a FIFO this shell holds open) stays open until the host has exited: it must not wait for its end.
    const host = `"$ANVIL" --output-format stream-json --input-format stream-json --verbose --permission-mode bypassPermissions`
    const r = await pipeline(
      root,
      { ...env, USER_LINE: user },
      `mkfifo in; (${host} <in 2>anvil.err | head -1; echo "status=\${PIPESTATUS[0]}") & exec 3>in; echo "$USER_LINE" >&3; wait $!; exec 3>&-`,
    )
    expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ type: "system", subtype: "init" })
    expect(r.status).toBe(141)
    expect(r.stderr).toContain("(SIGPIPE)")
    noStackTrace(r.stderr)
    expect(await waitUntil(() => processesMatching(`sleep ${tag}`).length === 0, 3000)).toBe(true)
  })
})
