import type { FakeTurn } from "../../test/support/fake-model.ts"
import { openAiFrames } from "../../test/support/fake-openai.ts"

/** One request of the agent loop (it offered tools), as the server received it. */
export interface LoopRequest {
  readonly body: any
  /** Size of the request body on the wire. */
  readonly bytes: number
  /** performance.now() when the request arrived. */
  readonly receivedAt: number
  /** performance.now() when the last byte of the answer was handed to the socket. */
  respondedAt?: number
}

export interface ScriptedModel {
  /** The base URL to configure, ending in /v1. */
  readonly url: string
  /** The requests that carried tools, in order: the agent loop. */
  readonly loop: ReadonlyArray<LoopRequest>
  /** Side requests without tools (e.g. a session-title request), answered with a short text and not scripted. */
  readonly side: ReadonlyArray<{ readonly bytes: number }>
  readonly stop: () => void
}

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 for benchmarks:
 * every request that offers tools gets the next scripted turn (streamed the
 * way real servers stream), every request without tools (a client's
 * title or summary request) gets a short text, so side requests never shift
 * the script. Every body is recorded with its size and arrival time.
 */
export const scriptedModel = (script: ReadonlyArray<FakeTurn>): ScriptedModel => {
  const loop: Array<LoopRequest> = []
  const side: Array<{ bytes: number }> = []
  const encoder = new TextEncoder()
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const receivedAt = performance.now()
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/chat/completions")) return new Response("not found", { status: 404 })
      const raw = await req.text()
      let body: any
      try {
        body = JSON.parse(raw)
      } catch {
        return Response.json({ error: { message: "body is not JSON" } }, { status: 400 })
      }
      const bytes = encoder.encode(raw).length
      const isLoop = Array.isArray(body.tools) && body.tools.length > 0
      let turn: FakeTurn | undefined
      let record: LoopRequest | undefined
      if (isLoop) {
        record = { body, bytes, receivedAt }
        turn = script[loop.length]
        loop.push(record)
        if (!turn) return Response.json({ error: { message: `scripted model: no turn ${loop.length} scripted` } }, { status: 400 })
      } else {
        side.push({ bytes })
        turn = { text: "Bench session" }
      }
      const frames = openAiFrames(turn, isLoop ? loop.length - 1 : 1000 + side.length, body)
      if (body.stream === false) {
        return Response.json({ error: { message: "scripted model: only streaming requests are supported" } }, { status: 400 })
      }
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(frames.join("")))
          controller.close()
          if (record) record.respondedAt = performance.now()
        },
      })
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, loop, side, stop: () => void server.stop(true) }
}
