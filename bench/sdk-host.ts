import { existsSync, writeFileSync, chmodSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../test/support/fake-model.ts"
import { fakeAnthropic } from "../test/support/fake-anthropic.ts"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

/**
 * The Agent SDK host against the Claude Code the SDK bundles: the same
 * `query()` program (the SDK from test/sdk-host), the same fake Anthropic
 * server on 127.0.0.1, only `pathToClaudeCodeExecutable` differs. Measured:
 * time from query() to the first message and to the result of a one-turn
 * answer, and the executable's peak RSS (GNU time around it).
 *
 * The reference executable comes from bench/sdk-host/package.json
 * (`cd bench/sdk-host && npm install`); the SDK from test/sdk-host (test/setup.sh).
 */

const SDK = join(import.meta.dir, "..", "test", "sdk-host", "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.mjs")
const CLAUDE = join(import.meta.dir, "sdk-host", "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude")
const GOAL = 0.5

/** A wrapper that records the executable's peak RSS in `rssFile`. */
const timed = (dir: string, exe: string, rssFile: string): string => {
  const wrapper = join(dir, `timed-${exe.split("/").at(-1)}.sh`)
  writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/time -f %M -o '${rssFile}' '${exe}' "$@"\n`)
  chmodSync(wrapper, 0o755)
  return wrapper
}

const once = async (exe: string, server: FakeServer, cwd: string, home: string): Promise<{ first: number; result: number; ok: boolean }> => {
  // The SDK lives in test/sdk-host's own node_modules, so it is loaded by path.
  const { query } = (await import(SDK)) as { query: (args: unknown) => AsyncIterable<{ type: string; subtype?: string; result?: string }> }
  server.push({ text: "Hello." })
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
  }
  const start = performance.now()
  let first = 0
  let ok = false
  for await (const m of query({ prompt: "say hello", options: { pathToClaudeCodeExecutable: exe, cwd, env, model: "claude-sonnet-4-5", maxTurns: 1 } })) {
    if (first === 0) first = performance.now() - start
    if (m.type === "result") {
      ok = m.subtype === "success" && m.result === "Hello."
      break
    }
  }
  return { first, result: performance.now() - start, ok }
}

export const sdkHost: BenchGroup = {
  name: "sdk-host",
  description: "Agent SDK query() to the first message and to the result: anvil against the Claude Code the SDK bundles",
  run: async (ctx: BenchContext): Promise<ReadonlyArray<Row>> => {
    const name = "SDK query() one-turn answer"
    if (!existsSync(SDK)) return [skippedRow(name, "the SDK is not installed (bash test/setup.sh)")]
    if (!existsSync(CLAUDE)) return [skippedRow(name, "the reference is not installed (cd bench/sdk-host && npm install)")]
    if (!existsSync("/usr/bin/time")) return [skippedRow(name, "GNU time is needed for the memory figure")]
    const server = fakeAnthropic([])
    try {
      const dir = mkdtempSync(join(tmpdir(), "anvil-bench-sdk-"))
      const home = mkdtempSync(join(tmpdir(), "anvil-bench-home-"))
      const runs = Math.min(ctx.runs, 5)
      const measure = async (exe: string) => {
        const rss = join(dir, "rss.txt")
        const wrapper = timed(dir, exe, rss)
        const firsts: Array<number> = []
        const results: Array<number> = []
        let peak = 0
        let ok = true
        for (let i = 0; i < runs + 1; i++) {
          rmSync(rss, { force: true })
          const r = await once(wrapper, server, dir, home)
          ok &&= r.ok
          // The wrapper's record is written when the executable exits, a moment after the result.
          for (let w = 0; w < 40 && !existsSync(rss); w++) await Bun.sleep(50)
          if (existsSync(rss)) peak = Math.max(peak, Number(readFileSync(rss, "utf8").trim().split("\n").at(-1)) * 1024)
          if (i === 0) continue // warm-up
          firsts.push(r.first)
          results.push(r.result)
        }
        return { first: median(firsts), result: median(results), peak, ok }
      }
      ctx.log(`sdk-host: ${runs} runs each of anvil and Claude Code through the SDK`)
      const anvil = await measure(ctx.binary)
      const claude = await measure(CLAUDE)
      const row = (label: string, a: number, c: number): Row => ({
        name: `${name}: ${label}`,
        value: ms(a),
        reference: `Claude Code ${ms(c)}`,
        ratio: a / c,
        peakRssBytes: anvil.peak,
        targets: [
          { label: `<= ${GOAL}x Claude Code`, pass: a / c <= GOAL },
          { label: "both answered", pass: anvil.ok && claude.ok },
        ],
        note: `peak RSS: anvil ${mib(anvil.peak)}, Claude Code ${mib(claude.peak)}`,
      })
      return [row("first message", anvil.first, claude.first), row("result", anvil.result, claude.result)]
    } finally {
      server.stop()
    }
  },
}
