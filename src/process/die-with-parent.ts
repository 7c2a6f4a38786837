import { existsSync } from "node:fs"
import type { SpawnWrap } from "./managed-process.ts"

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p))

/**
 * Where util-linux's setpriv exists, runs a long-lived child (an MCP or LSP
 * server) under `setpriv --pdeathsig KILL`, so that even a SIGKILL of anvil,
 * which runs no handler, takes the server with it (every other way out is the
 * managed-process registry's). Undefined where setpriv is missing.
 */
export const dieWithAnvil: SpawnWrap | undefined = SETPRIV
  ? (command) => ({ ...command, argv: [SETPRIV, "--pdeathsig", "KILL", "--", ...command.argv] })
  : undefined
