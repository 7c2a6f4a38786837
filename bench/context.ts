import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { FakeTurn } from "../test/support/fake-model.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { scriptedModel, type LoopRequest } from "./lib/scripted-model.ts"
import { toolResults } from "../test/support/anvil-cli.ts"
import { capture, median } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"

/**
 * Bytes sent to the model by anvil and by opencode (the reference, from
 * bench/package.json) over the same scripted session: one fake
 * OpenAI-compatible server on 127.0.0.1 answers both with the same tool
 * calls (each agent's own tool and parameter names), in the same freshly
 * copied workspace at the same path, and records every request body.
 *
 * The session: grep with thousands of hits, a read of a 10,000-line file, a
 * bash command printing 1 MB, an edit that fails, an edit that works, a glob
 * of thousands of files, then a text answer. Requests without tools (opencode
 * asks for a session title) are answered apart and not counted.
 */

const OPENCODE_VERSION = JSON.parse(readFileSync(join(import.meta.dir, "package.json"), "utf8")).devDependencies["opencode-ai"] as string
const OPENCODE_BIN = [
  join(import.meta.dir, "node_modules", "opencode-linux-x64", "bin", "opencode"),
  join(import.meta.dir, "node_modules", "opencode-linux-x64-baseline", "bin", "opencode"),
  join(import.meta.dir, "node_modules", "opencode-ai", "bin", "opencode.exe"),
]

const PACKAGES = 40
const MODULES = 50
const BIG_LINES = 10_000
const BASH_LINES = 52_632
/** Goal for both byte figures: at most half of opencode's. */
const GOAL = 0.5

/** One scripted step: what the model asks for, in each agent's own vocabulary. */
interface Step {
  readonly label: string
  readonly anvil: { readonly name: string; readonly arguments: Record<string, unknown> }
  readonly opencode: { readonly name: string; readonly arguments: Record<string, unknown> }
  /** When the answer must be cut: the whole count it has to state (nothing lost without saying so). */
  readonly total?: { readonly count: number; readonly of: string }
  /** The call is meant to fail (both agents must answer it as an error; every other call must succeed). */
  readonly fails?: true
}

const HITS = PACKAGES * MODULES * 2
const TS_FILES = PACKAGES * MODULES + 1

const steps = (ws: string): ReadonlyArray<Step> => {
  const big = "src/big.ts"
  const bash = `seq -f 'output line %06g' 1 ${BASH_LINES}`
  const failed = { old: "export const missing = 0", new: "export const missing = 1" }
  const good = { old: "export const value5000 = 5000", new: "export const value5000 = 5001" }
  return [
    {
      label: `grep, ${HITS.toLocaleString("en")} hits in ${(PACKAGES * MODULES).toLocaleString("en")} files`,
      anvil: { name: "grep", arguments: { pattern: "TODO" } },
      opencode: { name: "grep", arguments: { pattern: "TODO" } },
      total: { count: HITS, of: "hits" },
    },
    {
      label: `read of a ${BIG_LINES.toLocaleString("en")}-line file`,
      anvil: { name: "read", arguments: { path: big } },
      opencode: { name: "read", arguments: { filePath: join(ws, big) } },
      total: { count: BIG_LINES, of: "lines" },
    },
    {
      label: "bash printing 1 MB",
      anvil: { name: "bash", arguments: { command: bash } },
      opencode: { name: "bash", arguments: { command: bash, description: "Print 1 MB of numbered lines" } },
      total: { count: BASH_LINES, of: "lines" },
    },
    {
      label: "edit that fails (text not in the file)",
      fails: true,
      anvil: { name: "edit", arguments: { path: big, old_string: failed.old, new_string: failed.new } },
      opencode: { name: "edit", arguments: { filePath: join(ws, big), oldString: failed.old, newString: failed.new } },
    },
    {
      label: "edit that works",
      anvil: { name: "edit", arguments: { path: big, old_string: good.old, new_string: good.new } },
      opencode: { name: "edit", arguments: { filePath: join(ws, big), oldString: good.old, newString: good.new } },
    },
    {
      label: `glob of ${TS_FILES.toLocaleString("en")} files`,
      anvil: { name: "glob", arguments: { pattern: "**/*.ts" } },
      opencode: { name: "glob", arguments: { pattern: "**/*.ts" } },
      total: { count: TS_FILES, of: "files" },
    },
  ]
}

/** Whether `text` states `count`, written plainly or with thousands separators (4000, 4,000, 4 000). */
const states = (text: string, count: number): boolean => {
  const digits = String(count)
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, "[,. \u202f]?")
  return new RegExp(`(^|\\D)${grouped}(\\D|$)`).test(text)
}

const PROMPT = "Find the TODOs, look at src/big.ts, run the generator, bump value5000 and list the TypeScript files."
const ANSWER = "Done: value5000 is now 5001."

/**
 * The workspace, made once under bench/.work/context/template (a git
 * repository of 2,001 TypeScript files) and copied fresh to the same path
 * before each agent runs, so both see the same files at the same place.
 */
const template = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "context", "template")
  // The stamp names the shape, so a change of the constants makes a new workspace.
  const stamp = join(dir, ".git", "bench-complete")
  const shape = JSON.stringify({ PACKAGES, MODULES, BIG_LINES })
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === shape) return dir
  ctx.log(`context: generating a ${PACKAGES * MODULES + 1}-file workspace in ${dir}, once`)
  rmSync(dir, { recursive: true, force: true })
  for (let p = 0; p < PACKAGES; p++) {
    const folder = join(dir, "src", `pkg${p}`)
    mkdirSync(folder, { recursive: true })
    for (let m = 0; m < MODULES; m++) {
      const n = p * MODULES + m
      writeFileSync(
        join(folder, `mod${m}.ts`),
        [
          `// Module ${n} of package ${p}.`,
          `export interface Options${n} { readonly retries: number; readonly verbose: boolean }`,
          `// TODO: validate the options of module ${n} before use`,
          `export const run${n} = (options: Options${n}): number => {`,
          `  if (options.verbose) console.log("module ${n}", options)`,
          `  return options.retries * ${n} // TODO: cap the retries`,
          `}`,
          ``,
        ].join("\n"),
      )
    }
  }
  writeFileSync(join(dir, "src", "big.ts"), Array.from({ length: BIG_LINES }, (_, i) => `export const value${i + 1} = ${i + 1}`).join("\n") + "\n")
  const env = { ...ctx.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@example.test", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@example.test" }
  for (const args of [["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "workspace"]]) {
    const r = Bun.spawnSync(["git", ...args], { cwd: dir, env, stdout: "ignore", stderr: "pipe" })
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`)
  }
  writeFileSync(stamp, shape)
  return dir
}

/** A clean home for one agent: no user configuration, instructions or credentials of the person running the bench. */
const home = (ctx: BenchContext, ws: string, bin: string): Record<string, string> => {
  const dir = join(ws, "..", "home")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, ".config"), { recursive: true })
  return {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_DATA_HOME: join(dir, ".local", "share"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    XDG_STATE_HOME: join(dir, ".local", "state"),
    // Some programs take the working directory from PWD rather than from the process.
    PWD: ws,
    PATH: `${bin}:${ctx.env.PATH ?? "/usr/bin:/bin"}`,
  }
}

/**
 * A folder holding the rg anvil runs (extracted from the binary when none is
 * on PATH), put first on PATH for both agents: the same ripgrep searches for
 * both, and opencode does not try to download its own.
 */
const ripgrepDir = async (ctx: BenchContext, tpl: string): Promise<string> => {
  await capture([ctx.binary, "tool", "grep", JSON.stringify({ pattern: "TODO", path: "src/pkg0" })], { cwd: tpl, env: ctx.env })
  const check = await capture([ctx.binary, "self-check"], { env: ctx.env })
  const rg = (JSON.parse(check.stdout) as { ripgrep?: { path?: string } }).ripgrep?.path
  if (!rg || !existsSync(rg)) throw new Error(`anvil self-check names no ripgrep that exists (${rg ?? "none"})`)
  const dir = join(ctx.work, "context", "bin")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  symlinkSync(rg, join(dir, "rg"))
  return dir
}

interface CallOutcome {
  readonly ms: number
  readonly failed: boolean
}

interface Driver {
  readonly name: "anvil" | "opencode"
  /**
   * Runs the scripted session in `ws` against the model at `url` and returns, by call id, each tool call's
   * own time in milliseconds and whether it failed, from the agent's JSON events; throws with the agent's
   * stderr when it fails.
   */
  readonly run: (url: string, ws: string, bin: string) => Promise<ReadonlyMap<string, CallOutcome>>
}

const spawnAgent = async (argv: ReadonlyArray<string>, cwd: string, env: Record<string, string | undefined>, what: string) => {
  const child = Bun.spawn([...argv], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(timer)
  if (code !== 0) throw new Error(`${what} exited ${code}: ${(stderr || stdout).slice(-600)}`)
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, any>)
}

const anvilDriver = (ctx: BenchContext): Driver => ({
  name: "anvil",
  run: async (url, ws, bin) => {
    const env = home(ctx, ws, bin)
    // Language servers off on both sides: neither agent's edit answer waits for or carries diagnostics.
    mkdirSync(join(env.XDG_CONFIG_HOME!, "anvil"), { recursive: true })
    writeFileSync(join(env.XDG_CONFIG_HOME!, "anvil", "anvil.json"), JSON.stringify({ lsp: { enabled: false } }))
    const events = await spawnAgent(
      [ctx.binary, "run", "--yes", "-f", "stream-json", "--no-verify", "--model", "openai/bench", PROMPT],
      ws,
      { ...ctx.env, ...env, OPENAI_BASE_URL: url, OPENAI_API_KEY: "bench" },
      "anvil run",
    )
    // The tool's own time: execution_meta's fractional duration where given, else the envelope's whole milliseconds.
    return new Map(
      toolResults(events).map((r) => [r.id as string, { ms: Number(r.execution_meta?.duration_ms ?? r.envelope?.stats?.time_ms ?? 0), failed: r.is_error === true }]),
    )
  },
})

const opencodeDriver = (ctx: BenchContext, exe: string): Driver => ({
  name: "opencode",
  run: async (url, ws, bin) => {
    const env = home(ctx, ws, bin)
    const config = join(env.HOME!, "opencode.json")
    writeFileSync(
      config,
      JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        provider: {
          bench: {
            npm: "@ai-sdk/openai-compatible",
            name: "Bench",
            options: { baseURL: url, apiKey: "bench" },
            models: { model: { name: "model", limit: { context: 200_000, output: 8192 } } },
          },
        },
        model: "bench/model",
        small_model: "bench/model",
        autoupdate: false,
        share: "disabled",
        lsp: false,
        formatter: false,
        permission: { edit: "allow", bash: "allow", webfetch: "allow", external_directory: "allow" },
      }),
    )
    const events = await spawnAgent(
      [exe, "run", "--pure", "--auto", "--format", "json", "-m", "bench/model", PROMPT],
      ws,
      { ...ctx.env, ...env, OPENCODE_CONFIG: config, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1" },
      "opencode run",
    )
    // Each finished tool part carries the start and end of the tool's own run.
    return new Map(
      events
        .filter((e) => e.type === "tool_use" && e.part?.state?.time)
        .map((e) => [e.part.callID as string, { ms: Number(e.part.state.time.end) - Number(e.part.state.time.start), failed: e.part.state.status === "error" }]),
    )
  },
})

const utf8 = (value: unknown) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value)).length

/** What one agent sent over the session. */
interface Session {
  readonly requests: ReadonlyArray<LoopRequest>
  readonly total: number
  readonly first: number
  readonly systemBytes: number
  readonly toolsBytes: number
  readonly toolCount: number
  /** Bytes of the tool message answering each step (JSON of the message as sent), from the request after it. */
  readonly results: ReadonlyArray<number>
  /** The text of each of those messages. */
  readonly texts: ReadonlyArray<string>
  readonly edited: boolean
  /** Steps whose call failed where it should have worked, or worked where it should have failed. */
  readonly unexpected: ReadonlyArray<string>
  /** Per tool call: end of the answer asking for it → next request, minus the tool's own time. */
  readonly overheads: ReadonlyArray<number>
}

const toolMessage = (request: LoopRequest | undefined, callId: string): unknown =>
  (request?.body.messages as Array<any> | undefined)?.find((m) => m.role === "tool" && m.tool_call_id === callId)

const session = async (ctx: BenchContext, driver: Driver, tpl: string, ws: string, bin: string): Promise<Session> => {
  rmSync(ws, { recursive: true, force: true })
  cpSync(tpl, ws, { recursive: true })
  const plan = steps(ws)
  const script: Array<FakeTurn> = [...plan.map((s, i): FakeTurn => ({ tool_calls: [{ ...s[driver.name], id: `call_${i + 1}` }] })), { text: ANSWER }]
  const server = scriptedModel(script)
  let outcomes: ReadonlyMap<string, CallOutcome>
  try {
    ctx.log(`context: ${driver.name}, ${script.length} scripted requests`)
    outcomes = await driver.run(server.url, ws, bin)
  } finally {
    server.stop()
  }
  const requests = server.loop
  // Every body kept for inspection: bench/.work/context/<agent>-requests.json.
  writeFileSync(join(ctx.work, "context", `${driver.name}-requests.json`), JSON.stringify(requests.map((r) => r.body), null, 1))
  if (requests.length !== script.length) throw new Error(`${driver.name} made ${requests.length} requests with tools, the script has ${script.length}`)
  const first = requests[0]!.body
  // A call of a tool the first request does not offer would measure an "unknown tool" answer, not the tool.
  const offered = new Set((first.tools as Array<any>).map((t) => t.function?.name))
  const missing = [...new Set(plan.map((s) => s[driver.name].name))].filter((n) => !offered.has(n))
  if (missing.length) throw new Error(`${driver.name}'s first request does not offer ${missing.join(", ")}; the script calls them`)
  const messages = plan.map((s, i) => {
    const message = toolMessage(requests[i + 1], `call_${i + 1}`) as { content?: unknown } | undefined
    if (message === undefined) throw new Error(`${driver.name}: no tool message answers step ${i + 1} (${s.label})`)
    return message
  })
  return {
    requests,
    total: requests.reduce((sum, r) => sum + r.bytes, 0),
    first: requests[0]!.bytes,
    systemBytes: utf8((first.messages as Array<any>).filter((m) => m.role === "system")),
    toolsBytes: utf8(first.tools),
    toolCount: first.tools.length,
    results: messages.map(utf8),
    texts: messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))),
    overheads: plan.map((_, i) => {
      const outcome = outcomes.get(`call_${i + 1}`)
      if (outcome === undefined) throw new Error(`${driver.name} reported no outcome for tool call ${i + 1}`)
      return requests[i + 1]!.receivedAt - requests[i]!.respondedAt! - outcome.ms
    }),
    // A tool that failed where it should not (no ripgrep, say) would measure an error message, not the tool.
    unexpected: plan.filter((s, i) => outcomes.get(`call_${i + 1}`)?.failed !== (s.fails === true)).map((s) => s.label),
    edited: readFileSync(join(ws, "src", "big.ts"), "utf8").includes("export const value5000 = 5001\n"),
  }
}

/** Sessions per agent: an agent's answers can differ from run to run (how much of a fast command's output is kept). */
const SESSIONS = 3

/** The session with the median total of SESSIONS runs, with the loop overheads of all of them. */
interface Sessions extends Session {
  readonly totals: ReadonlyArray<number>
}

const sessions = async (ctx: BenchContext, driver: Driver, tpl: string, ws: string, bin: string): Promise<Sessions> => {
  const runs: Array<Session> = []
  for (let i = 0; i < SESSIONS; i++) runs.push(await session(ctx, driver, tpl, ws, bin))
  const sorted = [...runs].sort((a, b) => a.total - b.total)
  return {
    ...sorted[sorted.length >> 1]!,
    overheads: runs.flatMap((r) => r.overheads),
    totals: runs.map((r) => r.total),
    unexpected: [...new Set(runs.flatMap((r) => r.unexpected))],
  }
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

export const context: BenchGroup = {
  name: "context",
  description: "bytes sent to the model over one scripted session (grep, 10,000-line read, 1 MB bash, edits, glob), against opencode",
  run: async (ctx) => {
    const exe = OPENCODE_BIN.find((p) => existsSync(p))
    if (!exe) return [skippedRow("model bytes against opencode", `opencode ${OPENCODE_VERSION} is not installed: cd bench && npm install`)]
    const tpl = template(ctx)
    // Short paths, as a user's project has: opencode answers with absolute paths, and a long bench folder would
    // count against it. The process id keeps two runs on one machine apart, at the same length.
    const base = join(tmpdir(), `anvil-ctx-${String(process.pid).padStart(7, "0")}`)
    const ws = join(base, "project")
    const bin = await ripgrepDir(ctx, tpl)
    let anvil: Sessions
    let opencode: Sessions
    try {
      anvil = await sessions(ctx, anvilDriver(ctx), tpl, ws, bin)
      opencode = await sessions(ctx, opencodeDriver(ctx, exe), tpl, ws, bin)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
    const plan = steps(ws)
    const reference = `opencode ${OPENCODE_VERSION}`
    const rows: Array<Row> = [
      {
        name: `model bytes, all ${anvil.requests.length} requests of the scripted session`,
        value: kb(anvil.total),
        reference: `${reference} ${kb(opencode.total)}`,
        ratio: anvil.total / opencode.total,
        targets: [
          { label: `<= ${GOAL}x opencode`, pass: anvil.total / opencode.total <= GOAL },
          { label: "both edits applied the same", pass: anvil.edited && opencode.edited },
          { label: "every call answered as scripted on both sides", pass: anvil.unexpected.length + opencode.unexpected.length === 0 },
        ],
        note: `the median of ${SESSIONS} sessions each (anvil ${anvil.totals.map(kb).join(", ")}; opencode ${opencode.totals.map(kb).join(", ")}); same tool calls, files and path for both; opencode's side requests without tools (a session title) not counted${[
          ...anvil.unexpected.map((l) => `; anvil answered unexpectedly: ${l}`),
          ...opencode.unexpected.map((l) => `; opencode answered unexpectedly: ${l}`),
        ].join("")}`,
      },
      {
        name: "model bytes, first request (system prompt + tool schemas)",
        value: kb(anvil.first),
        reference: `${reference} ${kb(opencode.first)}`,
        ratio: anvil.first / opencode.first,
        targets: [{ label: `<= ${GOAL}x opencode`, pass: anvil.first / opencode.first <= GOAL }],
        note: `system ${kb(anvil.systemBytes)} vs ${kb(opencode.systemBytes)}; tool schemas ${kb(anvil.toolsBytes)} for ${anvil.toolCount} tools vs ${kb(opencode.toolsBytes)} for ${opencode.toolCount}`,
      },
      {
        name: "loop overhead per tool call in this session",
        value: ms(median(anvil.overheads)),
        reference: `${reference} ${ms(median(opencode.overheads))}`,
        ratio: median(anvil.overheads) / median(opencode.overheads),
        note: `median over the ${SESSIONS} sessions' ${anvil.overheads.length} tool calls: end of the answer asking for the tool → next request, minus the tool's own time (anvil's execution_meta or envelope time, opencode's tool part start/end)`,
      },
      ...plan.map(
        (s, i): Row => ({
          name: `model bytes, tool result: ${s.label}`,
          value: kb(anvil.results[i]!),
          reference: `${reference} ${kb(opencode.results[i]!)}`,
          ratio: anvil.results[i]! / opencode.results[i]!,
          ...(s.total ? { targets: [{ label: `anvil states the total (${s.total.count.toLocaleString("en")} ${s.total.of})`, pass: states(anvil.texts[i]!, s.total.count) }] } : {}),
        }),
      ),
    ]
    return rows
  },
}
