import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { parseSse } from "../../src/llm/sse.ts"
import { runAnvil } from "../support/anvil-cli.ts"
import { project } from "../support/harness.ts"

// Keep-alives a server sends between its chunks are not chunks: an empty `data:` line is skipped, as the WHATWG
// framing says, not read as a chunk that is not JSON (which ended the turn with a model error).
setDefaultTimeout(60_000)

const body = (text: string) => new Response(text).body!
const events = async (text: string) => {
  const out: Array<unknown> = []
  for await (const e of parseSse(body(text))) out.push(e)
  return out
}
const chunk = (delta: unknown, finish: string | null = null) => JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })

const servers: Array<{ stop: (force: boolean) => void }> = []
afterAll(() => servers.forEach((s) => s.stop(true)))

describe("server-sent events with empty data", () => {
  test("a bare data: line (with or without a space) is no event; two data lines make one with a line break", async () => {
    expect(await events(`data:\n\ndata: \n\n: comment\n\nevent: ping\n\ndata: {"a":1}\n\ndata:\ndata:\n\n`)).toEqual([{ data: '{"a":1}' }, { data: "\n" }])
  })

  test("through anvil run: keep-alives between an OpenAI-compatible server's chunks leave the answer whole", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(`data:\n\ndata: ${chunk({ content: "Hel" })}\n\ndata: \n\ndata: ${chunk({ content: "lo" })}\n\ndata: ${chunk({}, "stop")}\n\ndata: [DONE]\n\n`, {
          headers: { "content-type": "text/event-stream" },
        }),
    })
    servers.push(server)
    const r = await runAnvil(["run", "-f", "json", "hi"], {
      cwd: project({}),
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${server.port}/v1`, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" },
    })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "Hello", is_error: false })
  })
})
