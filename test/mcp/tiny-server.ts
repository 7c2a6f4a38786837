/**
 * A small MCP server for the tests, speaking JSON-RPC by hand so that it starts
 * in milliseconds and can misbehave on purpose. Run as a program it serves
 * stdio; `makeHandler` serves the same tools over HTTP in the test process.
 *
 *   bun tiny-server.ts [--exit-at-start] [--refuse-init] [--bad-tools] [--clashing-tools] [--protocol=VERSION] [--mark=DIR] [--start-delay=MS] [--list-delay=MS]
 *
 * --mark=DIR: writes DIR/pid-<pid> at start and DIR/cancelled-<requestId> when a
 * cancel notification arrives, so a test can see what happened. --start-delay=MS:
 * answers nothing before MS milliseconds have passed (a server slow to start). --list-delay=MS: answers each
 * tools/list MS milliseconds late (a server whose handshake is done while its tools are not listed yet).
 */
import { appendFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"]

export interface HandlerOptions {
  /** Answer initialize with this version whatever the client asks. */
  readonly protocol?: string
  /** Answer initialize with a JSON-RPC error (a server that refuses to start, staying alive). */
  readonly refuseInit?: boolean
  readonly mark?: string
  /** Sends a notification to the client (stdio: a line; HTTP: nothing). */
  readonly notify?: (message: unknown) => void
  /** Writes a line that is not JSON-RPC where messages go (stdio only). */
  readonly raw?: (line: string) => void
  /** Where the crash tool ends the process (stdio only). */
  readonly crash?: () => void
  /** Also list two tools with invalid definitions. */
  readonly badTools?: boolean
  /** Also list tools whose names clash with others in anvil (echo twice, ECHO, e.cho beside e_cho). */
  readonly clashingTools?: boolean
  /** The Authorization header the HTTP transport saw. */
  readonly authorization?: () => string | undefined
}

type Message = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: any }

const text = (t: string) => ({ content: [{ type: "text", text: t }] })

const baseTools = [
  { name: "echo", description: "Echoes its message.", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }, annotations: { readOnlyHint: true } },
  { name: "big", description: "Returns `lines` numbered lines.", inputSchema: { type: "object", properties: { lines: { type: "number" } } } },
  { name: "hang", description: "Never answers.", inputSchema: { type: "object", properties: {} } },
  { name: "crash", description: "The server dies during the call.", inputSchema: { type: "object", properties: {} } },
  { name: "progress", description: "Reports progress, then answers.", inputSchema: { type: "object", properties: {} } },
  { name: "structured", description: "Returns structured content.", inputSchema: { type: "object", properties: {} } },
  { name: "add_tool", description: "Adds a tool named `name` and announces the change.", inputSchema: { type: "object", properties: { name: { type: "string" } } } },
  { name: "whoami", description: "Says which Authorization header and TINY_SECRET it got.", inputSchema: { type: "object", properties: {} } },
  { name: "fails", description: "Answers with isError.", inputSchema: { type: "object", properties: {} } },
  { name: "malformed", description: "Answers with a result that is not valid MCP (content is not an array).", inputSchema: { type: "object", properties: {} } },
  { name: "server_error", description: "Answers with a JSON-RPC error of the server-error range (-32000), staying alive.", inputSchema: { type: "object", properties: {} } },
  { name: "null_result", description: "Answers with a result that is null (not valid JSON-RPC for a call).", inputSchema: { type: "object", properties: {} } },
  { name: "add_bad_tool", description: "Adds a valid tool `name` and one without inputSchema, and announces the change.", inputSchema: { type: "object", properties: { name: { type: "string" } } } },
  { name: "break_list", description: "From now on answers tools/list with a list that is no list, and announces a change.", inputSchema: { type: "object", properties: {} } },
  { name: "typed", description: "Declares an output schema and answers with structured content that breaks it.", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  { name: "garbled", description: "Prints its answer as a log line on stdout (not JSON-RPC) and never answers.", inputSchema: { type: "object", properties: {} } },
  { name: "refuses", description: "Refuses its arguments as the TypeScript SDK does (isError, code -32602).", inputSchema: { type: "object", properties: {} } },
  { name: "mixed", description: "Answers with every block type of the protocol, one of a type it does not have and one missing its data.", inputSchema: { type: "object", properties: {} } },
  { name: "flood", description: "Prints a line of 65 Mi characters on stdout and never answers.", inputSchema: { type: "object", properties: {} } },
]

/** The server's JSON-RPC logic: the answer to a message (undefined for notifications and calls that never answer). */
export const makeHandler = (options: HandlerOptions = {}) => {
  const tools: Array<Record<string, unknown>> = [...baseTools]
  // Tools whose definitions are not valid MCP: the others must still be offered.
  if (options.badTools) tools.push({ name: "no_schema", description: "Has no inputSchema." }, { name: "string_schema", inputSchema: { type: "string" } })
  if (options.clashingTools) {
    const schema = { type: "object", properties: {} }
    tools.push({ name: "echo", description: "A second echo.", inputSchema: schema }, { name: "ECHO", inputSchema: schema }, { name: "e.cho", inputSchema: schema }, { name: "e_cho", inputSchema: schema })
  }
  let listBroken = false
  return async (message: Message): Promise<unknown | undefined> => {
    const { id, method, params } = message
    if (method === "notifications/cancelled" && options.mark) writeFileSync(join(options.mark, `cancelled-${params?.requestId}`), "")
    if (id === undefined) return undefined
    const reply = (result: unknown) => ({ jsonrpc: "2.0", id, result })
    switch (method) {
      case "initialize": {
        if (options.refuseInit) return { jsonrpc: "2.0", id, error: { code: -32000, message: "license check failed: no seat left" } }
        const asked = String(params?.protocolVersion ?? "")
        const version = options.protocol ?? (SUPPORTED.includes(asked) ? asked : SUPPORTED[0])
        return reply({ protocolVersion: version, capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} }, serverInfo: { name: "tiny", version: "1.0.0" } })
      }
      case "ping":
        return reply({})
      case "tools/list":
        return reply({ tools: listBroken ? "broken" : tools })
      case "resources/list":
        return reply({ resources: [{ uri: "tiny://readme", name: "readme", mimeType: "text/plain" }] })
      case "prompts/list":
        return reply({ prompts: [{ name: "greet", description: "Says hello.", arguments: [{ name: "who", required: true }] }] })
      case "tools/call": {
        const args = params?.arguments ?? {}
        switch (params?.name) {
          case "echo":
            return reply(text(`echo: ${args.message}`))
          case "big":
            return reply(text(Array.from({ length: Number(args.lines ?? 10) }, (_, i) => `line ${i + 1} of the big result`).join("\n")))
          case "hang":
            return new Promise(() => undefined)
          case "garbled":
            options.raw?.("result: 42 (printed, not sent)")
            return new Promise(() => undefined)
          case "flood":
            options.raw?.("y".repeat(65 * 1024 * 1024))
            return new Promise(() => undefined)
          case "crash":
            process.stderr.write("tiny: crashing on purpose\n")
            options.crash?.()
            return new Promise(() => undefined)
          case "progress": {
            const token = params?._meta?.progressToken
            for (let i = 1; i <= 3; i++) {
              if (token !== undefined) options.notify?.({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i, total: 3, message: `step ${i}` } })
              await Bun.sleep(30)
            }
            return reply(text("progress done"))
          }
          case "structured":
            return reply({ content: [{ type: "text", text: JSON.stringify({ answer: 42 }) }], structuredContent: { answer: 42 } })
          case "add_tool":
            tools.push({ name: String(args.name), description: "Added at run time.", inputSchema: { type: "object", properties: {} } })
            options.notify?.({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            return reply(text(`added ${args.name}`))
          case "add_bad_tool":
            tools.push({ name: String(args.name), description: "Added at run time.", inputSchema: { type: "object", properties: {} } }, { name: `${args.name}_bad`, description: "No inputSchema." })
            options.notify?.({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            return reply(text(`added ${args.name} and ${args.name}_bad`))
          case "break_list":
            listBroken = true
            options.notify?.({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            return reply(text("the list is broken now"))
          case "typed":
            return reply({ content: [{ type: "text", text: "n is a word" }], structuredContent: { n: "not a number" } })
          case "whoami":
            return reply(text(`authorization=${options.authorization?.() ?? "none"} secret=${process.env.TINY_SECRET ?? "none"}`))
          case "fails":
            return reply({ content: [{ type: "text", text: "the thing failed" }], isError: true })
          case "malformed":
            return reply({ content: "not a list" })
          case "server_error":
            return { jsonrpc: "2.0", id, error: { code: -32000, message: "the database is locked" } }
          case "null_result":
            return { jsonrpc: "2.0", id, result: null }
          case "mixed":
            return reply({
              content: [
                { type: "text", text: "first" },
                { type: "video", mimeType: "video/mp4", data: "AAAA".repeat(400) },
                { type: "image", mimeType: "image/png" },
                { type: "audio", mimeType: "audio/wav", data: "AAAA" },
                { type: "resource_link", uri: "file:///notes.txt", name: "notes.txt" },
                { type: "resource", resource: { uri: "file:///a.txt", text: "inside a" } },
                "a bare string",
                { type: "text", text: "last" },
              ],
            })
          case "refuses":
            return reply({ content: [{ type: "text", text: "MCP error -32602: Input validation error: Invalid arguments for tool refuses: Required at m" }], isError: true })
          default:
            if (tools.some((t) => t.name === params?.name)) return reply(text(`${params.name} ran`))
            return { jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } }
        }
      }
      default:
        return { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } }
    }
  }
}

if (import.meta.main) {
  const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  const mark = flag("mark")
  if (mark) writeFileSync(join(mark, `pid-${process.pid}`), "")
  if (process.argv.includes("--exit-at-start")) {
    process.stderr.write("tiny: fatal: the configuration file is missing\n")
    process.exit(4)
  }
  const send = (m: unknown) => process.stdout.write(`${JSON.stringify(m)}\n`)
  const protocol = flag("protocol")
  const handle = makeHandler({
    ...(protocol ? { protocol } : {}),
    ...(mark ? { mark } : {}),
    notify: send,
    crash: () => process.exit(3),
    raw: (line) => process.stdout.write(`${line}\n`),
    refuseInit: process.argv.includes("--refuse-init"),
    badTools: process.argv.includes("--bad-tools"),
    clashingTools: process.argv.includes("--clashing-tools"),
  })
  const delay = Number(flag("start-delay") ?? 0)
  const listDelay = Number(flag("list-delay") ?? 0)
  const started = Bun.sleep(delay)
  let pending = ""
  process.stdin.on("data", (chunk) => {
    pending += chunk.toString()
    let nl: number
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl)
      pending = pending.slice(nl + 1)
      if (line.trim() === "") continue
      if (mark) appendFileSync(join(mark, "log"), `${line}\n`)
      const message = JSON.parse(line)
      const wait = message.method === "tools/list" ? started.then(() => Bun.sleep(listDelay)) : started
      void wait.then(() => handle(message)).then((answer) => answer !== undefined && send(answer))
    }
  })
  process.stdin.on("end", () => process.exit(0))
}
