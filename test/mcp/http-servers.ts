import { makeHandler } from "./tiny-server.ts"

export interface TestHttpServer {
  readonly url: string
  /** Forgets every session, as a restarted server does: requests with an old session id get 404. */
  readonly forgetSessions?: () => void
  /** Authorization headers seen, in order. */
  readonly authorizations: Array<string | undefined>
  readonly stop: () => void
}

const encoder = new TextEncoder()
const sseEvent = (data: unknown, event = "message") => encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

/**
 * The tiny server over streamable HTTP on 127.0.0.1: each request's answer
 * (and any notifications sent while it runs, such as progress) comes back as
 * an SSE stream on the POST; there is no standing GET stream.
 */
export const streamableServer = (): TestHttpServer => {
  const authorizations: Array<string | undefined> = []
  let lastAuth: string | undefined
  let sessions = 0
  let session = ""
  // Notifications go to the stream of the request being handled (the tests make one call at a time).
  let current: ReadableStreamDefaultController<Uint8Array> | undefined
  const handle = makeHandler({
    notify: (m) => current?.enqueue(sseEvent(m)),
    authorization: () => lastAuth,
    // The server goes away during the call: the call's stream, already answered with its headers, ends without an answer.
    crash: () => {
      const stream = current
      setTimeout(() => stream?.close(), 50)
    },
  })
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      if (req.method === "GET") return new Response("no standing stream", { status: 405 })
      if (req.method === "DELETE") return new Response(null, { status: 200 })
      lastAuth = req.headers.get("authorization") ?? undefined
      authorizations.push(lastAuth)
      const message = (await req.json()) as any
      if (message.method === "initialize") session = `tiny-session-${++sessions}`
      else if (req.headers.get("mcp-session-id") !== session) return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 })
      if (message.id === undefined) {
        await handle(message)
        return new Response(null, { status: 202 })
      }
      const stream = new ReadableStream<Uint8Array>({
        start: (controller) => {
          current = controller
          void handle(message).then((answer) => {
            if (answer !== undefined) controller.enqueue(sseEvent(answer))
            if (current === controller) current = undefined
            controller.close()
          })
        },
      })
      return new Response(stream, { headers: { "content-type": "text/event-stream", "mcp-session-id": session } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    authorizations,
    forgetSessions: () => {
      session = ""
    },
    stop: () => void server.stop(true),
  }
}

/**
 * A server that only speaks the old HTTP+SSE transport: GET opens the event
 * stream (first event: the endpoint to POST to), answers arrive on it; a POST
 * to the stream's URL (a streamable HTTP attempt) is refused with 405.
 */
export const sseOnlyServer = (): TestHttpServer => {
  const streams = new Map<string, ReadableStreamDefaultController<Uint8Array>>()
  const handle = makeHandler()
  let next = 0
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const url = new URL(req.url)
      if (url.pathname === "/sse" && req.method === "GET") {
        const session = String(++next)
        const stream = new ReadableStream<Uint8Array>({
          start: (c) => {
            streams.set(session, c)
            c.enqueue(encoder.encode(`event: endpoint\ndata: /messages?session=${session}\n\n`))
          },
          cancel: () => void streams.delete(session),
        })
        return new Response(stream, { headers: { "content-type": "text/event-stream" } })
      }
      if (url.pathname === "/messages" && req.method === "POST") {
        const stream = streams.get(url.searchParams.get("session") ?? "")
        if (!stream) return new Response("no such session", { status: 404 })
        const message = await req.json()
        void handle(message as any).then((answer) => answer !== undefined && stream.enqueue(sseEvent(answer)))
        return new Response("Accepted", { status: 202 })
      }
      return new Response("Method Not Allowed", { status: 405 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/sse`,
    authorizations: [],
    stop: () => {
      for (const c of streams.values()) {
        try {
          c.close()
        } catch {
          // closed
        }
      }
      server.stop(true)
    },
  }
}
