import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, toolResults } from "../test/support/anvil-cli.ts"
import type { FakeServer, FakeTurn } from "../test/support/fake-model.ts"
import { fakeOpenAI } from "../test/support/fake-openai.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median } from "./lib/measure.ts"
import { ms, type Row } from "./lib/report.ts"

/**
 * MCP client costs, against a fake OpenAI-compatible server on 127.0.0.1 and
 * the test suite's tiny MCP server (test/mcp/tiny-server.ts, stdio):
 *
 * - time to the first model request (spawn of `anvil run` → the request
 *   arriving) with three servers configured (two tiny servers and
 *   server-everything): the request waits for them, so the reference is the
 *   same run with no server plus the time a bare SDK client takes to connect
 *   the three in parallel and list their tools (what the wait cannot go below);
 * - the overhead of one MCP call: anvil's time for `mcp__tiny__echo` inside an
 *   agent run (envelope stats.time_ms: pipeline, SDK, pipe both ways), against
 *   a bare @modelcontextprotocol/sdk client calling the same server's tool.
 */

const TINY = join(import.meta.dir, "..", "test", "mcp", "tiny-server.ts")

const BARE_CLIENT = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
const [bun, tiny, calls] = [process.argv[2], process.argv[3], Number(process.argv[4])]
const client = new Client({ name: "bare", version: "1" })
await client.connect(new StdioClientTransport({ command: bun, args: [tiny] }))
const times = []
for (let i = 0; i < calls; i++) {
  const t = performance.now()
  await client.callTool({ name: "echo", arguments: { message: "m" + i } })
  times.push(performance.now() - t)
}
times.sort((a, b) => a - b)
console.log(times[times.length >> 1])
await client.close()
`

/** Connects the servers given as JSON (an array of {command, args}) in parallel and lists their tools; prints the milliseconds. */
const BARE_CONNECT = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
const servers = JSON.parse(process.argv[2])
const t = performance.now()
const clients = await Promise.all(servers.map(async (s) => {
  const client = new Client({ name: "bare", version: "1" })
  await client.connect(new StdioClientTransport({ command: s.command, args: s.args ?? [] }))
  await client.listTools()
  return client
}))
console.log(performance.now() - t)
await Promise.all(clients.map((c) => c.close()))
`

/** Runs one of the scripts above with Bun; resolves to the number it prints. */
const bareScript = async (ctx: BenchContext, name: string, text: string, args: ReadonlyArray<string>): Promise<number> => {
  const scriptFile = join(ctx.repo, "bench", ".work", "mcp", name)
  writeFileSync(scriptFile, text)
  const bare = Bun.spawn([process.execPath, scriptFile, ...args], { cwd: ctx.repo, stdout: "pipe", stderr: "pipe", env: ctx.env })
  const [out, code] = await Promise.all([new Response(bare.stdout).text(), bare.exited])
  if (code !== 0) throw new Error(`the bare SDK client failed: ${await new Response(bare.stderr).text()}`)
  return Number(out.trim())
}

/** `anvil run` in `dir` (its own HOME, so its anvil.json is the user's) against `server`; resolves to stdout. */
const anvilRun = async (ctx: BenchContext, dir: string, server: FakeServer, prompt: string): Promise<string> => {
  const child = Bun.spawn([ctx.binary, "run", "-f", "stream-json", "--model", "openai/bench", prompt], {
    cwd: dir,
    env: { ...ctx.env, HOME: dir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "bench" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`anvil run exited ${code}: ${err.slice(0, 300)}`)
  return out
}

const firstRequestMs = async (ctx: BenchContext, dir: string): Promise<number> => {
  const server = fakeOpenAI([{ text: "done" }])
  try {
    const started = performance.now()
    await anvilRun(ctx, dir, server, "hi")
    return server.requests[0]!.receivedAt - started
  } finally {
    server.stop()
  }
}

const project = (ctx: BenchContext, name: string, servers: Record<string, unknown>) => {
  const dir = join(ctx.work, "mcp", name)
  mkdirSync(join(dir, ".config", "anvil"), { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  writeFileSync(join(dir, ".config", "anvil", "anvil.json"), JSON.stringify({ mcpServers: servers }))
  return dir
}

export const mcp: BenchGroup = {
  name: "mcp",
  description: "MCP: time to the first model request with 0 and 3 servers configured; one MCP call's overhead against a bare SDK client",
  run: async (ctx) => {
    const runs = Math.max(3, Math.min(ctx.runs, 10))
    const tiny = { command: process.execPath, args: [TINY] }
    const everything = { command: join(ctx.repo, "node_modules", ".bin", "mcp-server-everything") }
    const none = project(ctx, "none", {})
    const three = project(ctx, "three", { a: tiny, b: tiny, everything })
    ctx.log(`mcp: time to the first model request, ${runs} runs each with 0 and 3 servers`)
    const without: Array<number> = []
    const withThree: Array<number> = []
    const connects: Array<number> = []
    for (let i = 0; i < runs; i++) {
      without.push(await firstRequestMs(ctx, none))
      withThree.push(await firstRequestMs(ctx, three))
      connects.push(await bareScript(ctx, "bare-connect.ts", BARE_CONNECT, [JSON.stringify([tiny, tiny, everything])]))
    }

    const calls = Math.max(10, Math.min(ctx.runs * 2, 40))
    ctx.log(`mcp: ${calls} echo calls through anvil run, then through a bare SDK client`)
    const callDir = project(ctx, "calls", { tiny: { ...tiny, permission: "allow" } })
    const script: Array<FakeTurn> = [
      ...Array.from({ length: calls }, (_, i): FakeTurn => ({ tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: `m${i}` } }] })),
      { text: "done" },
    ]
    const server = fakeOpenAI(script)
    let anvilCall: number
    try {
      const out = await anvilRun(ctx, callDir, server, "go")
      const times = toolResults(jsonLines(out))
        .filter((r) => r.envelope?.status === "success")
        .map((r) => Number(r.envelope.stats.time_ms))
      // The first call also waits for the server to start; the rest are steady state.
      anvilCall = median(times.slice(1))
    } finally {
      server.stop()
    }
    const bareCall = await bareScript(ctx, "bare-client.ts", BARE_CLIENT, [process.execPath, TINY, String(calls)])

    const a = median(without)
    const b = median(withThree)
    const c = median(connects)
    return [
      {
        name: "first model request, 3 MCP servers",
        value: ms(b),
        reference: `no server ${ms(a)} + bare parallel connect ${ms(c)}`,
        ratio: b / (a + c),
        targets: [{ label: "ratio < 1.3", pass: b / (a + c) < 1.3 }],
        note: `median of ${runs}: spawn of anvil run → first request received, which waits for two tiny stdio servers and server-everything; servers start while the session is set up, so it can come in under the sum`,
      },
      {
        name: "MCP call (echo), anvil",
        value: ms(anvilCall),
        reference: `bare SDK client ${ms(bareCall)}`,
        ratio: anvilCall / Math.max(bareCall, 0.01),
        targets: [{ label: "overhead < 5 ms", pass: anvilCall - bareCall < 5 }],
        note: `median of ${calls - 1} calls (envelope stats.time_ms: pipeline, SDK, stdio both ways) against the same calls from a bare client`,
      },
    ] satisfies ReadonlyArray<Row>
  },
}
