import { argsText, fakeServer, pieces, withStreamError, type FakeServer, type FakeTurn } from "./fake-model.ts"

const event = (name: string, obj: unknown) => `event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`

/** The Messages SSE for one turn: message_start, text and tool_use blocks (input_json_delta), message_delta, message_stop. */
export const anthropicFrames = (turn: FakeTurn, index: number, body: any): Array<string> => {
  const usage = turn.usage ?? { input_tokens: 100 + index, output_tokens: 10 }
  const out = [
    event("message_start", {
      type: "message_start",
      message: { id: `msg_${index + 1}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    event("ping", { type: "ping" }),
  ]
  let block = 0
  if (turn.thinking) {
    out.push(event("content_block_start", { type: "content_block_start", index: block, content_block: { type: "thinking", thinking: "" } }))
    for (const piece of pieces(turn.thinking)) out.push(event("content_block_delta", { type: "content_block_delta", index: block, delta: { type: "thinking_delta", thinking: piece } }))
    out.push(event("content_block_delta", { type: "content_block_delta", index: block, delta: { type: "signature_delta", signature: `sig-${index + 1}` } }))
    out.push(event("content_block_stop", { type: "content_block_stop", index: block }))
    block++
  }
  if (turn.text) {
    out.push(event("content_block_start", { type: "content_block_start", index: block, content_block: { type: "text", text: "" } }))
    for (const piece of pieces(turn.text)) out.push(event("content_block_delta", { type: "content_block_delta", index: block, delta: { type: "text_delta", text: piece } }))
    out.push(event("content_block_stop", { type: "content_block_stop", index: block }))
    block++
  }
  ;(turn.tool_calls ?? []).forEach((call, i) => {
    const id = call.id ?? `toolu_${index + 1}_${i + 1}`
    out.push(event("content_block_start", { type: "content_block_start", index: block, content_block: { type: "tool_use", id, name: call.name, input: {} } }))
    for (const piece of pieces(argsText(call.arguments))) {
      out.push(event("content_block_delta", { type: "content_block_delta", index: block, delta: { type: "input_json_delta", partial_json: piece } }))
    }
    out.push(event("content_block_stop", { type: "content_block_stop", index: block }))
    block++
  })
  const stop = turn.tool_calls && turn.tool_calls.length > 0 ? "tool_use" : "end_turn"
  out.push(event("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }))
  out.push(event("message_stop", { type: "message_stop" }))
  return withStreamError(turn, out, (error) => event("error", { type: "error", error }))
}

/** A fake Anthropic Messages server: POST /v1/messages, streaming. `url` is the origin (ANTHROPIC_BASE_URL). */
export const fakeAnthropic = (script: ReadonlyArray<FakeTurn>): FakeServer =>
  fakeServer((p) => p === "/v1/messages", "", script, anthropicFrames)
