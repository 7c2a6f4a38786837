import { isRecord } from "../protocol/is-record.ts"
/**
 * `--input-format stream-json`: user messages as JSON lines on standard
 * input, in the shape Claude Code reads (`{"type":"user","message":{"role":
 * "user","content": "…" | [{"type":"text","text":"…"}]}}`). Each one is a
 * turn. This is the one place input lines are decoded; messages of other
 * types are handed back as they are for a host that understands them.
 */
export type InputMessage =
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "other"; readonly type: string; readonly message: Record<string, unknown> }
  | { readonly kind: "invalid"; readonly line: number; readonly error: string }


/**
 * The text of a user message's content: a string, or its text blocks joined. Other blocks (an image, a document)
 * are named in the text, so the model can say it did not get them: anvil sends the model text only.
 */
const contentText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const texts = content.filter(isRecord).flatMap((b) =>
    b.type === "text" && typeof b.text === "string"
      ? [b.text]
      : typeof b.type === "string"
        ? [`[The user's message had ${/^[aeiou]/.test(b.type) ? "an" : "a"} ${b.type} block here, which anvil does not pass on to the model.]`]
        : [],
  )
  return texts.length > 0 ? texts.join("\n\n") : undefined
}

/** Decodes one input line (`line` is its number, for errors); blank lines are undefined. */
export const decodeInputLine = (raw: string, line: number): InputMessage | undefined => {
  if (raw.trim() === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return { kind: "invalid", line, error: "not valid JSON" }
  }
  if (!isRecord(value) || typeof value.type !== "string") return { kind: "invalid", line, error: 'not a message object with a "type"' }
  if (value.type !== "user") return { kind: "other", type: value.type, message: value }
  const message = value.message
  const text = isRecord(message) ? contentText(message.content) : undefined
  if (text === undefined || text.trim() === "") {
    return { kind: "invalid", line, error: 'a user message needs "message": {"role": "user", "content": "…" or text blocks}' }
  }
  return { kind: "user", text }
}

/**
 * Splits a byte stream into lines and decodes each. `stop` ends the input early (a signal, standard output's
 * reader gone): a read waiting for the next line is cancelled, and what is left unread is dropped.
 */
export async function* inputMessages(stream: ReadableStream<Uint8Array>, stop?: AbortSignal): AsyncGenerator<InputMessage> {
  const decoder = new TextDecoder()
  let buffered = ""
  let line = 0
  if (stop?.aborted) return
  const reader = stream.getReader()
  const cancel = () => void reader.cancel().catch(() => undefined)
  stop?.addEventListener("abort", cancel, { once: true })
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read()
      if (done || stop?.aborted) break
      buffered += decoder.decode(chunk, { stream: true })
      let nl = buffered.indexOf("\n")
      while (nl >= 0 && !stop?.aborted) {
        const message = decodeInputLine(buffered.slice(0, nl), ++line)
        buffered = buffered.slice(nl + 1)
        if (message) yield message
        nl = buffered.indexOf("\n")
      }
    }
  } finally {
    stop?.removeEventListener("abort", cancel)
    reader.releaseLock()
  }
  if (stop?.aborted) return
  buffered += decoder.decode()
  const last = decodeInputLine(buffered, ++line)
  if (last) yield last
}
