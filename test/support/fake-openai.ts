import { argsText, fakeServer, pieces, withStreamError, type FakeServer, type FakeTurn } from "./fake-model.ts"

const data = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`

const openAiUsage = (usage: NonNullable<FakeTurn["usage"]>) => {
  const cached = usage.cache_read_input_tokens ?? 0
  const prompt = usage.input_tokens + cached
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  }
}

/** The Chat Completions SSE for one turn: content deltas, tool-call fragments by index, finish, usage, [DONE]. */
export const openAiFrames = (turn: FakeTurn, index: number, body: any): Array<string> => {
  const id = `chatcmpl-${index + 1}`
  const chunk = (delta: unknown, finish: string | null = null) =>
    data({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })
  const out = [chunk({ role: "assistant", content: "" })]
  for (const piece of turn.thinking ? pieces(turn.thinking) : []) out.push(chunk({ reasoning_content: piece }))
  for (const piece of turn.text ? pieces(turn.text) : []) out.push(chunk({ content: piece }))
  ;(turn.tool_calls ?? []).forEach((call, i) => {
    const callId = call.id ?? `call_${index + 1}_${i + 1}`
    out.push(chunk({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: call.name, arguments: "" } }] }))
    for (const piece of pieces(argsText(call.arguments))) out.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }))
  })
  out.push(chunk({}, turn.tool_calls && turn.tool_calls.length > 0 ? "tool_calls" : "stop"))
  if (body.stream_options?.include_usage) {
    const usage = turn.usage ?? { input_tokens: 100 + index, output_tokens: 10 }
    out.push(data({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage: openAiUsage(usage) }))
  }
  out.push("data: [DONE]\n\n")
  return withStreamError(turn, out, (error) => data({ error }))
}

/** A fake OpenAI-compatible server: POST /v1/chat/completions, streaming. `url` ends in /v1. */
export const fakeOpenAI = (script: ReadonlyArray<FakeTurn>): FakeServer =>
  fakeServer((p) => p === "/v1/chat/completions", "/v1", script, openAiFrames)
