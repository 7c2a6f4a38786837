import { createServer, connect, type Server, type Socket } from "node:net"
import { rmSync } from "node:fs"

/** Decides whether a connection to `host` may go out (it may ask a person first). */
export type HostGate = (host: string) => Promise<boolean>

/** The proxy anvil runs for `sandbox.network` host lists: the only way out of the sandbox's network. */
export interface SandboxProxy {
  readonly socketPath: string
  readonly close: () => Promise<void>
}

/** The longest request head accepted (request line and headers). */
const MAX_HEAD = 64 * 1024

const refuse = (client: Socket, status: string, body: string) => {
  client.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}

/** `host:port` or `[v6]:port` → parts. */
const splitHostPort = (text: string, defaultPort: number): { host: string; port: number } | undefined => {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(text)
  if (!m) return undefined
  const port = m[2] ? Number(m[2]) : defaultPort
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port }
}

/** Joins two sockets both ways; either one failing or closing ends both. */
export const pipeBoth = (a: Socket, b: Socket) => {
  a.pipe(b)
  b.pipe(a)
  const end = () => {
    a.destroy()
    b.destroy()
  }
  a.on("error", end)
  b.on("error", end)
  a.on("close", end)
  b.on("close", end)
}

const handle = (client: Socket, gate: HostGate) => {
  let head = Buffer.alloc(0)
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk])
    const end = head.indexOf("\r\n\r\n")
    if (end < 0) {
      if (head.length > MAX_HEAD) refuse(client, "431 Request Header Fields Too Large", "request head too large\n")
      return
    }
    client.off("data", onData)
    client.pause()
    void route(client, head.subarray(0, end).toString("latin1"), head.subarray(end + 4), gate)
  }
  client.on("data", onData)
  client.on("error", () => client.destroy())
}

const route = async (client: Socket, headText: string, rest: Buffer, gate: HostGate) => {
  const [requestLine = "", ...headerLines] = headText.split("\r\n")
  const [method = "", target = "", version = "HTTP/1.1"] = requestLine.split(" ")
  let host: string
  let port: number
  let firstBytes: Buffer
  if (method.toUpperCase() === "CONNECT") {
    const hp = splitHostPort(target, 443)
    if (!hp) return refuse(client, "400 Bad Request", `bad CONNECT target: ${target}\n`)
    ;({ host, port } = hp)
    firstBytes = rest
  } else {
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return refuse(client, "400 Bad Request", "anvil's sandbox proxy takes absolute http:// URLs and CONNECT\n")
    }
    if (url.protocol !== "http:") return refuse(client, "400 Bad Request", `use CONNECT for ${url.protocol} URLs\n`)
    host = url.hostname.replace(/^\[|\]$/g, "")
    port = url.port ? Number(url.port) : 80
    // One request per connection, so a kept-alive connection cannot reach a second, unchecked host.
    const headers = headerLines.filter((l) => !/^(proxy-connection|proxy-authorization|connection|keep-alive)\s*:/i.test(l))
    firstBytes = Buffer.concat([Buffer.from(`${method} ${url.pathname}${url.search} ${version}\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n`, "latin1"), rest])
  }
  let allowed = false
  try {
    allowed = await gate(host)
  } catch {
    allowed = false
  }
  if (!allowed) {
    return refuse(
      client,
      "403 Forbidden",
      `anvil sandbox: connections to ${host} are not allowed. Add "${host}" to sandbox.network in anvil.json to allow it.\n`,
    )
  }
  const upstream = connect({ host, port })
  upstream.once("error", (e) => refuse(client, "502 Bad Gateway", `anvil sandbox proxy: cannot reach ${host}:${port} (${e.message})\n`))
  upstream.once("connect", () => {
    upstream.removeAllListeners("error")
    if (method.toUpperCase() === "CONNECT") client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
    if (firstBytes.length > 0) upstream.write(firstBytes)
    pipeBoth(client, upstream)
    client.resume()
  })
}

/**
 * Starts the HTTP and CONNECT proxy on a unix socket. The socket lives in the
 * session's temporary folder, which the sandbox mounts; a relay inside the
 * sandbox's own network namespace forwards 127.0.0.1 to it (see relay.ts).
 */
export const startProxy = (socketPath: string, gate: HostGate): Promise<SandboxProxy> =>
  new Promise((resolve, reject) => {
    rmSync(socketPath, { force: true })
    const sockets = new Set<Socket>()
    const server: Server = createServer((client) => {
      sockets.add(client)
      client.on("close", () => sockets.delete(client))
      handle(client, gate)
    })
    server.once("error", reject)
    server.listen(socketPath, () => {
      server.off("error", reject)
      resolve({
        socketPath,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy()
            server.close(() => {
              rmSync(socketPath, { force: true })
              done()
            })
          }),
      })
    })
  })
