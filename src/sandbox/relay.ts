import { spawn } from "node:child_process"
import { connect, createServer, type Socket } from "node:net"
import { pipeBoth } from "./proxy.ts"

import { RELAY_COMMAND } from "./relay-command.ts"

const LOOPBACK = ["localhost", "127.0.0.1", "::1"]

/**
 * Runs inside the sandbox's own network namespace: listens on 127.0.0.1 (a
 * free port), forwards each connection to anvil's proxy over the unix socket
 * given as the first argument, points HTTP(S)_PROXY at itself and runs the
 * command (the rest of the arguments), ending with its exit status. Local
 * names stay direct (NO_PROXY) unless the host list names them.
 */
export const runRelay = async (argv: ReadonlyArray<string>): Promise<never> => {
  const [socketPath, hostList, file, ...args] = argv
  if (!socketPath || hostList === undefined || !file) {
    process.stderr.write(`anvil ${RELAY_COMMAND}: usage: SOCKET HOSTS COMMAND [ARGS…]\n`)
    process.exit(2)
  }
  const hosts = hostList.split(",")
  const server = createServer((inner: Socket) => pipeBoth(inner, connect({ path: socketPath })))
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
  })
  const proxy = `http://127.0.0.1:${port}`
  const noProxy = LOOPBACK.filter((h) => !hosts.includes(h)).join(",")
  const env = {
    ...process.env,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    ALL_PROXY: proxy,
    all_proxy: proxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  }
  const child = spawn(file, args, { stdio: "inherit", env })
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => child.kill(signal))
  const code = await new Promise<number>((resolve) => {
    child.on("error", (e) => {
      process.stderr.write(`${file}: ${e.message}\n`)
      resolve(127)
    })
    child.on("exit", (c, s) => resolve(c ?? 128 + (s === "SIGKILL" ? 9 : s === "SIGINT" ? 2 : 15)))
  })
  process.exit(code)
}
