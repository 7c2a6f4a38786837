import { expect, test } from "bun:test"
import { scriptedModel } from "../../bench/lib/scripted-model.ts"

const post = async (url: string, body: unknown) => {
  const res = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  const text = await res.text()
  // The streamed answer put back together: its text and the tool calls' names and arguments.
  const chunks = text.split("\n\n").filter((f) => f.startsWith("data: {")).map((f) => JSON.parse(f.slice(6)))
  const deltas = chunks.flatMap((c) => c.choices?.map((ch: any) => ch.delta) ?? [])
  const content = deltas.map((d) => d.content ?? "").join("")
  const calls = deltas.flatMap((d) => d.tool_calls ?? []).map((t: any) => `${t.id ?? ""}${t.function?.name ?? ""}${t.function?.arguments ?? ""}`).join("")
  return { status: res.status, text, content, calls }
}

test("the bench's model answers requests with tools from the script and side requests apart, recording sizes", async () => {
  const server = scriptedModel([{ tool_calls: [{ name: "grep", arguments: { pattern: "TODO" }, id: "call_1" }] }, { text: "done" }])
  try {
    const tools = [{ type: "function", function: { name: "grep", parameters: {} } }]
    const first = { model: "m", stream: true, tools, messages: [{ role: "user", content: "go" }] }
    const a = await post(server.url, first)
    expect(a.status).toBe(200)
    expect(a.calls).toBe('call_1grep{"pattern":"TODO"}')
    // A title request (no tools) does not take the next scripted turn.
    const title = await post(server.url, { model: "m", stream: true, messages: [{ role: "system", content: "title" }] })
    expect(title.content).toBe("Bench session")
    const b = await post(server.url, { ...first, messages: [...first.messages, { role: "tool", tool_call_id: "call_1", content: "hits" }] })
    expect(b.content).toBe("done")
    expect(b.text).toEndWith("data: [DONE]\n\n")
    const c = await post(server.url, first)
    expect(c.status).toBe(400)
    expect(c.text).toContain("no turn 3 scripted")
    expect(server.loop.length).toBe(3)
    expect(server.side.length).toBe(1)
    expect(server.loop[0]!.bytes).toBe(JSON.stringify(first).length)
    expect(server.loop[0]!.respondedAt).toBeGreaterThanOrEqual(server.loop[0]!.receivedAt)
  } finally {
    server.stop()
  }
})
