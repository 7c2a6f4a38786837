type Json = Record<string, unknown>

/**
 * --include-partial-messages: the model's thinking and text as they stream, in the Anthropic stream-event shapes the
 * SDK passes on (message_start, one content block per run of thinking or text, each with its deltas, message_stop).
 * `send` writes one event; `end` closes the message when its whole assistant message is about to be sent.
 */
export const makePartialStream = (send: (event: Json) => void) => {
  let open: "thinking" | "text" | undefined
  let index = -1
  let started = false
  const closeBlock = () => {
    if (open !== undefined) send({ type: "content_block_stop", index })
    open = undefined
  }
  return {
    delta: (kind: "thinking" | "text", text: string) => {
      if (!started) {
        started = true
        send({ type: "message_start", message: { role: "assistant", content: [] } })
      }
      if (open !== kind) {
        closeBlock()
        open = kind
        index++
        send({ type: "content_block_start", index, content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" } })
      }
      send({ type: "content_block_delta", index, delta: kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text } })
    },
    end: () => {
      if (!started) return
      closeBlock()
      send({ type: "message_stop" })
      started = false
      index = -1
    },
  }
}
