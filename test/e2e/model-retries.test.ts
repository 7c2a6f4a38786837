import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// Through the CLI: a stream that fails before its answer is retried and announced as an HTTP failure is; a
// Retry-After longer than model_retry.max_delay_ms fails the turn at once with the wait the server asked for.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
const serverOf = (script: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(script)
  servers.push(server)
  return { server, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
}

describe("model retries through anvil run", () => {
  test("an in-stream server error before the answer is retried: stream-json shows api_retry, then the answer", async () => {
    const { server, env } = serverOf([{ stream_error: { after_frames: 0, error: { message: "overloaded", type: "server_error", code: 503 } } }, { text: "recovered" }])
    const out = await runAnvil(["run", "-f", "stream-json", "hi"], { cwd: project({}), env })
    const lines = jsonLines(out.stdout)
    expect(lines.find((m) => m.subtype === "api_retry")).toMatchObject({ attempt: 1, error: "The model server reported an error mid-stream: overloaded" })
    expect(lines.at(-1)).toMatchObject({ type: "result", is_error: false, result: "recovered" })
    expect(server.requests.length).toBe(2)
  })

  test("a Retry-After beyond the limit is not waited out early: the result says what the server asked", async () => {
    const { server, env } = serverOf([{ status: 429, retry_after: "90", error_body: "slow down" }, { text: "unused" }])
    const out = await runAnvil(["run", "-f", "json", "hi"], { cwd: project({}), env })
    const result = JSON.parse(out.stdout)
    expect(result.is_error).toBe(true)
    expect(result.errors[0]).toContain("The server asked to wait 90 s before trying again (Retry-After), longer than the 60 s anvil waits at most")
    expect(out.stderr).not.toContain("retrying")
    expect(server.requests.length).toBe(1)
  })

  test("model_retry.max_delay_ms sets the limit: a Retry-After within it is waited for", async () => {
    const refusing = serverOf([{ status: 429, retry_after: "0.5" }, { text: "unused" }])
    const refused = await runAnvil(["run", "hi"], { cwd: project({ "anvil.json": JSON.stringify({ model_retry: { max_delay_ms: 300 } }) }), env: refusing.env })
    expect(refused.stderr).toContain("The server asked to wait 500 ms before trying again (Retry-After), longer than the 300 ms anvil waits at most")
    expect(refusing.server.requests.length).toBe(1)
    const waiting = serverOf([{ status: 429, retry_after: "0.5" }, { text: "after the wait" }])
    const waited = await runAnvil(["run", "hi"], { cwd: project({ "anvil.json": JSON.stringify({ model_retry: { max_delay_ms: 1000 } }) }), env: waiting.env })
    expect(waited.stdout).toContain("after the wait")
    expect(waited.stderr).toContain("retrying in 0.5 s")
  })
})
