import { describe, expect, test } from "bun:test"
import { createServer, type Server } from "node:http"
import { callTool, project } from "../support/harness.ts"

/**
 * A body that does not decode as its Content-Encoding says (a server that sends plain bytes marked gzip) is the
 * server's broken answer: EXECUTION_ERROR, not retryable, with curl's raw view next, never a NETWORK_ERROR that
 * invites the same call again.
 */

const serve = (encoding: string): Promise<Server> =>
  new Promise((ready) => {
    const server = createServer((_req, res) => {
      const body = Buffer.from("these bytes are not compressed at all")
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Encoding": encoding, "Content-Length": String(body.length) })
      res.end(body)
    })
    server.listen(0, "127.0.0.1", () => ready(server))
  })

describe("fetch: a body that does not decode", () => {
  for (const encoding of ["gzip", "deflate", "br"]) {
    test(`marked ${encoding}: the server's broken answer, with its raw bytes as the next look`, async () => {
      const server = await serve(encoding)
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/page`
        const { envelope } = await callTool(project({}), "fetch", { url })
        expect(envelope.error?.code).toBe("EXECUTION_ERROR")
        expect(envelope.error?.retryable).toBe(false)
        expect(envelope.error?.message).toStartWith(`The body from ${url} does not decode as its Content-Encoding says (`)
        expect(envelope.text).toEndWith(`* Bash(command="curl -sS -i '${url}'")`)
      } finally {
        server.close()
      }
    })
  }
})
