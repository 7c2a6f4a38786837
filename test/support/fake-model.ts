/** A scripted turn of a fake model server: what the model "says", or an HTTP failure to answer with. */
export interface FakeTurn {
  readonly text?: string
  /** Extended thinking before the answer: an Anthropic thinking block (signed `sig-N`), OpenAI's reasoning_content. */
  readonly thinking?: string
  readonly tool_calls?: ReadonlyArray<{ readonly name: string; readonly arguments?: unknown; readonly id?: string }>
  /** Answer this request with this HTTP status instead (e.g. 429), then go on to the next turn. */
  readonly status?: number
  readonly retry_after?: string
  readonly error_body?: string
  /** Wait this long before answering (cancellation tests). */
  readonly delay_ms?: number
  /** Send this many frames of the answer, then go silent without closing the stream (stalled-server tests). */
  readonly hang_after_frames?: number
  /** Send this many frames, then close the stream cleanly as if it were complete (a cut-off answer). */
  readonly close_after_frames?: number
  /** Send this many frames, then break the connection (the body fails mid-stream). */
  readonly break_after_frames?: number
  /** Send `after_frames` frames, then report `error` inside the stream (an SSE error frame) and close it. */
  readonly stream_error?: { readonly after_frames: number; readonly error: unknown }
  /**
   * The reply's usage, in Anthropic's terms (`input_tokens` without the cache's). The OpenAI fake sends the cache
   * reads as `prompt_tokens_details.cached_tokens`, counted in `prompt_tokens` as OpenAI does.
   */
  readonly usage?: {
    readonly input_tokens: number
    readonly output_tokens: number
    readonly cache_read_input_tokens?: number
    readonly cache_creation_input_tokens?: number
    readonly cache_creation?: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number }
  }
  /** The turn made from the request it answers (to call a tool with an id an earlier result gave). */
  readonly from?: (body: any) => FakeTurn
}

/** One request the fake server received. */
export interface RecordedRequest {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: any
  readonly bytes: number
  /** performance.now() when the request arrived. */
  readonly receivedAt: number
  /** performance.now() when the last byte of the answer was handed to the socket (the bench's "tool call sent" time). */
  respondedAt?: number
}

export interface FakeServer {
  /** The base URL to configure (OpenAI: ends in /v1; Anthropic: the origin). */
  readonly url: string
  readonly requests: Array<RecordedRequest>
  /** Appends more turns to the script. */
  readonly push: (...turns: ReadonlyArray<FakeTurn>) => void
  readonly stop: () => void
}

export const argsText = (args: unknown): string => (typeof args === "string" ? args : JSON.stringify(args ?? {}))

/** A turn's frames as its `stream_error` cuts them: the first frames, then the provider's error frame. */
export const withStreamError = (turn: FakeTurn, frames: Array<string>, errorFrame: (error: unknown) => string): Array<string> =>
  turn.stream_error ? [...frames.slice(0, turn.stream_error.after_frames), errorFrame(turn.stream_error.error)] : frames

/** Splits a string into n roughly equal pieces (so arguments arrive as several deltas, as real servers send them). */
export const pieces = (s: string, n = 3): Array<string> => {
  if (s.length <= n) return [s]
  const size = Math.ceil(s.length / n)
  const out: Array<string> = []
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size))
  return out
}

/**
 * A Bun.serve on 127.0.0.1:0 that answers each POST to `route` with the next
 * scripted turn, framed by `frame` as a text/event-stream, and records every
 * request (path, headers, parsed JSON body, size).
 */
export const fakeServer = (
  route: (path: string) => boolean,
  basePath: string,
  script: ReadonlyArray<FakeTurn>,
  frame: (turn: FakeTurn, index: number, body: any) => Array<string>,
): FakeServer => {
  const turns = [...script]
  const requests: Array<RecordedRequest> = []
  let next = 0
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const receivedAt = performance.now()
      const url = new URL(req.url)
      if (req.method !== "POST" || !route(url.pathname)) return new Response("not found", { status: 404 })
      const raw = await req.text()
      let body: any
      try {
        body = JSON.parse(raw)
      } catch {
        return new Response(JSON.stringify({ error: { message: "body is not JSON" } }), { status: 400 })
      }
      const record: RecordedRequest = { path: url.pathname, headers: Object.fromEntries(req.headers.entries()), body, bytes: new TextEncoder().encode(raw).length, receivedAt }
      requests.push(record)
      const index = next++
      const scripted = turns[index]
      const turn = scripted?.from ? scripted.from(body) : scripted
      if (!turn) {
        return new Response(JSON.stringify({ error: { message: `fake server: no turn ${index + 1} scripted` } }), { status: 400 })
      }
      if (turn.delay_ms) await Bun.sleep(turn.delay_ms)
      if (turn.status) {
        return new Response(turn.error_body ?? JSON.stringify({ error: { message: `scripted ${turn.status}` } }), {
          status: turn.status,
          headers: { "content-type": "application/json", ...(turn.retry_after !== undefined ? { "retry-after": turn.retry_after } : {}) },
        })
      }
      const events = frame(turn, index, body)
      const encoder = new TextEncoder()
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const [i, e] of events.entries()) {
            if (turn.hang_after_frames !== undefined && i >= turn.hang_after_frames) {
              // Silent until the client gives up (its abort cancels this stream).
              await new Promise(() => undefined)
            }
            if (turn.close_after_frames !== undefined && i >= turn.close_after_frames) break
            if (turn.break_after_frames !== undefined && i >= turn.break_after_frames) {
              // The frames sent reach the client first: a reset at once could drop them from the socket's buffer.
              await Bun.sleep(50)
              controller.error(new Error("fake server: connection broken"))
              return
            }
            controller.enqueue(encoder.encode(e))
            await Bun.sleep(0)
          }
          controller.close()
          record.respondedAt = performance.now()
        },
      })
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}${basePath}`,
    requests,
    push: (...more) => void turns.push(...more),
    stop: () => void server.stop(true),
  }
}
