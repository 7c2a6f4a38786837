/** One server-sent event: its `event:` name (if any) and its `data:` lines joined. */
export interface SseEvent {
  readonly event?: string
  readonly data: string
}

/**
 * Parses a text/event-stream body (the WHATWG framing: events end at a blank
 * line, `data:` lines join with "\n", `:` lines are comments, CR LF and CR
 * count as line ends, an event with empty data is not dispatched). Yields events as soon as their blank line arrives.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let buffer = ""
  let event: string | undefined
  let data: Array<string> = []
  const dispatch = (): SseEvent | undefined => {
    // An event whose data is empty is not dispatched (WHATWG): a bare `data:` line is a keep-alive some servers send.
    const joined = data.join("\n")
    const out = joined !== "" ? { ...(event !== undefined ? { event } : {}), data: joined } : undefined
    event = undefined
    data = []
    return out
  }
  const line = (raw: string): SseEvent | undefined => {
    if (raw === "") return dispatch()
    if (raw.startsWith(":")) return undefined
    const colon = raw.indexOf(":")
    const field = colon < 0 ? raw : raw.slice(0, colon)
    let value = colon < 0 ? "" : raw.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") data.push(value)
    else if (field === "event") event = value
    return undefined
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buffer)
        if (!m) break
        // A lone CR at the very end may be the first half of CR LF: wait for more.
        if (m[0] === "\r" && m.index === buffer.length - 1 && !done) break
        const out = line(buffer.slice(0, m.index))
        buffer = buffer.slice(m.index + m[0].length)
        if (out) yield out
      }
      if (done) {
        if (buffer !== "") {
          const out = line(buffer)
          buffer = ""
          if (out) yield out
        }
        const last = dispatch()
        if (last) yield last
        return
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
