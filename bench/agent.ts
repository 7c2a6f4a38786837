import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { toolResults } from "../test/support/anvil-cli.ts"
import type { FakeServer, FakeTurn } from "../test/support/fake-model.ts"
import { fakeOpenAI } from "../test/support/fake-openai.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median } from "./lib/measure.ts"
import { ms, type Row } from "./lib/report.ts"

/**
 * The agent loop's own cost, measured against a fake OpenAI-compatible server
 * on 127.0.0.1 that timestamps every request:
 *
 * - overhead per tool call: from the moment the server has sent a turn
 *   ending in a tool call to the moment the next request arrives, minus the
 *   tool's own time (envelope stats.time_ms). That is SSE decoding, the
 *   permission check, the envelope pipeline, the session append, building
 *   and sending the next request. The reference is a bare client doing only
 *   the unavoidable part: read the stream to [DONE], POST the next request
 *   of the same size.
 * - bytes sent to the model: the first request (system prompt and the tool
 *   schemas, paid on every request), and what one tool result adds to the
 *   next request against the size of the text the model reads.
 */

/** The loop's own time per tool call, beyond the tool itself. */
const OVERHEAD_GOAL_MS = 5
/** Tool calls made before the timed ones, as measure() warms up: the first calls of a process run cold code. */
const WARMUP_CALLS = 5

const BARE_CLIENT = `
const [url, calls, size] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const body = JSON.stringify({ model: "bench", stream: true, messages: [{ role: "user", content: "x".repeat(size) }] })
for (let i = 0; i <= calls; i++) {
  const res = await fetch(url + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body })
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ""
  for (;;) { const { done, value } = await reader.read(); if (done) break; text += decoder.decode(value, { stream: true }); if (text.includes("[DONE]")) break }
}
`

const gaps = (server: FakeServer, toolTimes: ReadonlyArray<number>): Array<number> => {
  const out: Array<number> = []
  for (let i = 0; i + 1 < server.requests.length; i++) {
    const sent = server.requests[i]!.respondedAt
    if (sent === undefined) continue
    out.push(server.requests[i + 1]!.receivedAt - sent - (toolTimes[i] ?? 0))
  }
  return out
}

const run = async (ctx: BenchContext, cwd: string, server: FakeServer, args: ReadonlyArray<string>) => {
  const child = Bun.spawn([ctx.binary, "run", "-f", "stream-json", "--model", "openai/bench", ...args], {
    cwd,
    env: { ...ctx.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "bench" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`anvil run exited ${code}: ${stderr.slice(0, 500)}`)
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, any>)
}

export const agent: BenchGroup = {
  name: "agent",
  description: "the agent loop's overhead per tool call (tool call sent → next request) and bytes sent per turn, against a bare SSE client",
  run: async (ctx) => {
    const dir = join(ctx.work, "agent")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "anvil.json"), "{}\n")
    writeFileSync(join(dir, "page.txt"), Array.from({ length: 200 }, (_, i) => `line ${i + 1}: the quick brown fox jumps over the lazy dog`).join("\n") + "\n")
    const calls = Math.max(5, Math.min(ctx.runs, 60))

    // Overhead: one calculator call per step (the tool itself takes well under a millisecond).
    ctx.log(`agent: ${WARMUP_CALLS} + ${calls} tool calls through anvil run, then the same number of round trips by a bare client`)
    const script: Array<FakeTurn> = [
      ...Array.from({ length: WARMUP_CALLS + calls }, (_, i): FakeTurn => ({ tool_calls: [{ name: "calculator", arguments: { expression: `${i}+1` } }] })),
      { text: "done" },
    ]
    const loopServer = fakeOpenAI(script)
    let overhead: number
    let fastest: number
    let cold: number
    let firstBytes: number
    let tools: number
    try {
      const events = await run(ctx, dir, loopServer, ["go"])
      // The tool's own time: execution_meta's fractional duration where given, else the envelope's whole milliseconds.
      const toolTimes = toolResults(events).map((r) => Number(r.execution_meta?.duration_ms ?? r.envelope?.stats.time_ms ?? 0))
      const allGaps = gaps(loopServer, toolTimes)
      const loopGaps = allGaps.slice(WARMUP_CALLS)
      overhead = median(loopGaps)
      fastest = Math.min(...loopGaps)
      cold = median(allGaps.slice(0, WARMUP_CALLS))
      firstBytes = loopServer.requests[0]!.bytes
      tools = (events[0]?.tools as Array<string> | undefined)?.length ?? 0
    } finally {
      loopServer.stop()
    }

    const bareServer = fakeOpenAI(Array.from({ length: calls + 1 }, () => ({ tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }] })))
    let reference: number
    try {
      const scriptFile = join(dir, "bare-client.ts")
      writeFileSync(scriptFile, BARE_CLIENT)
      const child = Bun.spawn([process.execPath, scriptFile, bareServer.url, String(calls), String(firstBytes)], { stdout: "ignore", stderr: "pipe", env: ctx.env })
      if ((await child.exited) !== 0) throw new Error(`the bare client failed: ${await new Response(child.stderr).text()}`)
      reference = median(gaps(bareServer, []))
    } finally {
      bareServer.stop()
    }

    // Bytes: what one read of 200 lines adds to the next request, against the text the model reads.
    ctx.log("agent: bytes added to the conversation by one read of 200 lines")
    const readServer = fakeOpenAI([{ tool_calls: [{ name: "read", arguments: { path: "page.txt", limit: 200 } }] }, { text: "read it" }])
    let added: number
    let observed: number
    try {
      const events = await run(ctx, dir, readServer, ["read page.txt"])
      const result = toolResults(events)[0]
      observed = new TextEncoder().encode(String(result?.envelope.text ?? "")).length
      added = readServer.requests[1]!.bytes - readServer.requests[0]!.bytes
    } finally {
      readServer.stop()
    }

    const rows: Array<Row> = [
      {
        name: "agent loop overhead per tool call",
        value: ms(overhead),
        reference: `bare SSE client ${ms(reference)}`,
        ratio: overhead / Math.max(reference, 0.01),
        targets: [{ label: `median <= ${OVERHEAD_GOAL_MS} ms`, pass: overhead <= OVERHEAD_GOAL_MS }],
        note: `median over ${calls} calculator calls after ${WARMUP_CALLS} untimed ones (fastest ${ms(fastest)}; the first ${WARMUP_CALLS}: ${ms(cold)}), tool time excluded: tool call sent by the server → next request received`,
      },
      {
        name: "bytes sent, first request of a turn",
        value: `${(firstBytes / 1024).toFixed(1)} KiB`,
        note: `system prompt and ${tools} tool schemas, sent with every request`,
      },
      {
        name: "bytes added by one tool result (read, 200 lines)",
        value: `${added} B`,
        reference: `text the model reads ${observed} B`,
        ratio: added / Math.max(observed, 1),
        targets: [{ label: "ratio < 1.3", pass: added / Math.max(observed, 1) < 1.3 }],
        note: "the assistant's tool call plus the tool message, JSON-escaped, over the observation text itself",
      },
    ]
    return rows
  },
}
