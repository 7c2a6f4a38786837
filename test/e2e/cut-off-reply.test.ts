import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import { project } from "../support/harness.ts"

// A reply the server ended at its output token limit (finish_reason "length") is reported as Claude Code reports
// one: stop_reason "max_tokens", not "end_turn", so a script can tell a cut answer from a finished one.
setDefaultTimeout(60_000)

const servers: Array<{ stop: (force: boolean) => void }> = []
afterAll(() => servers.forEach((s) => s.stop(true)))

const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** An OpenAI-compatible server whose every answer is `text` cut at the token limit. */
const cutServer = (text: string) => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(`${chunk({ role: "assistant", content: text })}${chunk({}, "length")}data: [DONE]\n\n`, { headers: { "content-type": "text/event-stream" } }),
  })
  servers.push(server)
  return { OPENAI_BASE_URL: `http://127.0.0.1:${server.port}/v1`, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
}

describe("a reply cut at the output token limit", () => {
  test("stream-json's assistant message and the result (json too) say stop_reason max_tokens", async () => {
    const env = cutServer("The answer is")
    const stream = jsonLines((await runAnvil(["run", "-f", "stream-json", "hi"], { cwd: project({}), env })).stdout)
    expect(stream.find((m) => m.type === "assistant").message.stop_reason).toBe("max_tokens")
    expect(stream.at(-1)).toMatchObject({ type: "result", result: "The answer is", stop_reason: "max_tokens" })
    const json = await runAnvil(["run", "-f", "json", "hi"], { cwd: project({}), env })
    expect(JSON.parse(json.stdout)).toMatchObject({ result: "The answer is", stop_reason: "max_tokens" })
  })
})
