import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fieldNames } from "../../src/tool-framework/params.ts"
import type { Tool } from "../../src/tool-framework/definition.ts"
import { loadBuiltinTools } from "../../src/tools/builtin.ts"
import { project, session } from "../support/harness.ts"
import { anvilBinary } from "./binary.ts"
import { rng } from "./gitignore-crosscheck.ts"

// A seeded fuzzer over every built-in tool's parameters: wrong types, huge and deep values, NUL bytes,
// lone surrogates (invalid UTF-8 once encoded), odd paths, hostile globs. Every call must come back as a
// valid envelope (the harness checks the contract), quickly, and small: nothing echoes a large value.
setDefaultTimeout(120_000)

/** Per call: a hang guard, not a speed figure. */
const CALL_MS = 10_000
/** An answer larger than this echoes what it was given. */
const MAX_ENVELOPE_CHARS = 200_000
const SEED = 9
const CALLS = 2400

/** Tools whose valid strings would act outside the test (run commands, reach the network, ask a person). */
const TYPE_ONLY = new Set(["bash", "fetch", "task", "question", "web_search"])

const deep = (depth: number): unknown => {
  let v: unknown = "bottom"
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v }
  return v
}

const STRINGS = [
  "",
  " ",
  "a.txt",
  "missing.txt",
  "dir",
  ".",
  "..",
  "../../../etc/passwd",
  "/etc/passwd",
  "/",
  "~/x",
  "a\u0000b",
  "\u0000",
  "\ud800",
  "x\udfffy",
  "é/ü/\u202e.txt",
  "-rf",
  "--help",
  "a/../../b",
  "*a*a*a*a*a*a*a*a*a*a*b",
  "**/**/**/**/**/**/**/**/x",
  "[",
  "[!",
  "{a,b",
  "{1..100000}",
  "(a+)+$",
  "\\",
  "\n\n\n",
  "file:///etc/passwd",
  "a".repeat(5000),
  "line\n".repeat(2000),
]

const value = (r: () => number, level = 0): unknown => {
  const pick = Math.floor(r() * 14)
  switch (pick) {
    case 0:
      return null
    case 1:
      return r() < 0.5
    case 2:
      return [0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308, Number.NaN, Number.POSITIVE_INFINITY][Math.floor(r() * 8)]
    case 3:
    case 4:
    case 5:
    case 6:
      return STRINGS[Math.floor(r() * STRINGS.length)]
    case 7:
      return level < 2 ? [value(r, level + 1), value(r, level + 1)] : []
    case 8:
      return level < 2 ? { [STRINGS[Math.floor(r() * STRINGS.length)]!]: value(r, level + 1) } : {}
    case 9:
      return deep(r() < 0.5 ? 100 : 10_000)
    case 10:
      return "x".repeat(r() < 0.7 ? 100_000 : 3_000_000)
    case 11:
      return Array.from({ length: r() < 0.5 ? 1000 : 150_000 }, (_, i) => i)
    case 12:
      return Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]))
    default:
      return undefined
  }
}

/** Parameters for one call: mostly the tool's own keys, sometimes junk keys or no object at all. */
const params = (tool: Tool, r: () => number): unknown => {
  const roll = r()
  if (roll < 0.04) return value(r)
  if (roll < 0.07) return JSON.stringify({ path: "a.txt" }).slice(0, Math.floor(r() * 10))
  const names = fieldNames(tool)
  const out: Record<string, unknown> = {}
  for (const name of names) if (r() < 0.6) out[name] = value(r)
  if (r() < 0.1) out[STRINGS[Math.floor(r() * STRINGS.length)]!] = value(r)
  if (TYPE_ONLY.has(tool.name)) {
    // Only shapes that fail to decode: a number where the command, URL or question should be.
    for (const key of Object.keys(out)) if (typeof out[key] === "string" || out[key] === undefined) out[key] = 42
    if (names.length > 0) out[names[0]!] = { not: "a string" }
  }
  return out
}

let tools: ReadonlyArray<Tool> = []
beforeAll(async () => {
  tools = await loadBuiltinTools()
})

const projectFiles = () =>
  project({ "a.txt": "alpha\nbeta\n", "dir/b.ts": "export const b = 1\n", ".gitignore": "*a*a*a*a*a*a*a*a*b\nignored/\n" })

describe("fuzzing every tool's parameters (in process)", () => {
  test(`${CALLS} seeded calls: each an envelope, within ${CALL_MS} ms, never echoing a large value`, async () => {
    const r = rng(SEED)
    const root = projectFiles()
    const s = session(root)
    const problems: Array<string> = []
    let slowest = 0
    for (let i = 0; i < CALLS; i++) {
      const tool = tools[Math.floor(r() * tools.length)]!
      const p = params(tool, r)
      const started = performance.now()
      let timer: ReturnType<typeof setTimeout> | undefined
      const outcome = await Promise.race([
        s.call(tool.name, p).catch((e: unknown) => `threw: ${e instanceof Error ? e.message.slice(0, 300) : String(e)}`),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve("timed out"), CALL_MS))),
      ])
      clearTimeout(timer)
      const ms = performance.now() - started
      slowest = Math.max(slowest, ms)
      const label = `#${i} ${tool.name} ${JSON.stringify(p)?.slice(0, 200)}`
      if (typeof outcome === "string") problems.push(`${label}: ${outcome}`)
      else {
        const size = JSON.stringify(outcome.envelope).length
        if (size > MAX_ENVELOPE_CHARS) problems.push(`${label}: envelope of ${size} characters`)
        if (outcome.envelope.status === "error" && outcome.envelope.error?.code === "INTERNAL_ERROR") {
          problems.push(`${label}: INTERNAL_ERROR ${outcome.envelope.error.message.slice(0, 300)}`)
        }
      }
      if (problems.length > 20) break
    }
    expect(problems).toEqual([])
  })

  test("limits are named: depth, count and size each an INVALID_PARAM saying which", async () => {
    const s = session(projectFiles())
    const depth = await s.call("read", { path: deep(10_000) })
    expect(depth.envelope.error).toMatchObject({ code: "INVALID_PARAM" })
    expect(depth.envelope.error!.message).toContain("maxDepth")
    const count = await s.call("todowrite", { todos: Array.from({ length: 200_000 }, () => 1) })
    expect(count.envelope.error!.message).toContain("maxNodes")
    expect(JSON.stringify(count.envelope).length).toBeLessThan(20_000)
    const echo = await s.call("edit", { path: "a.txt", old_string: "q".repeat(1_000_000), new_string: "z" })
    expect(JSON.stringify(echo.envelope).length).toBeLessThan(20_000)
    expect(JSON.stringify(echo.envelope.context.params_input)).toContain("more characters not shown")
  })

  test("an invalid grep include is INVALID_PARAM naming include", async () => {
    const s = session(projectFiles())
    for (const include of ["/abs/*.ts", "../*.ts", "src/../../x", "a\u0000b", "~/x"]) {
      const outcome = await s.call("grep", { pattern: "alpha", include })
      expect({ include, code: outcome.envelope.error?.code }).toEqual({ include, code: "INVALID_PARAM" })
      expect(outcome.envelope.error!.field_errors?.[0]?.field).toBe("include")
    }
  })
})

describe("a sample through the binary", () => {
  test("JSON from the command line and stdin: envelopes, exit 0/1/2, no stack trace; a 34 MB write stays small in memory", async () => {
    const binary = await anvilBinary()
    const root = projectFiles()
    const r = rng(SEED + 1)
    const run = (args: ReadonlyArray<string>, stdin?: string) => {
      const proc = Bun.spawnSync(["/usr/bin/time", "-f", "%M", binary, ...args], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1" },
        stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
        stdout: "pipe",
        stderr: "pipe",
        timeout: 30_000,
      })
      const err = proc.stderr.toString()
      const rssKb = Number(err.trim().split("\n").at(-1))
      return { code: proc.exitCode, out: proc.stdout.toString(), err, rssKb }
    }
    for (let i = 0; i < 12; i++) {
      const tool = tools[Math.floor(r() * tools.length)]!
      const p = params(tool, r)
      const text = JSON.stringify(typeof p === "object" && p !== null && !Array.isArray(p) ? p : { value: p })
      const res = run(["tool", tool.name, "-"], text)
      expect({ tool: tool.name, code: [0, 1].includes(res.code ?? -1) }).toEqual({ tool: tool.name, code: true })
      expect(res.err).not.toContain("    at ")
      expect(JSON.parse(res.out).status).toBeDefined()
    }
    const big = "0123456789abcdef\n".repeat(2_000_000) // 34 MB
    const bigParams = JSON.stringify({ path: "big.txt", content: big })
    writeFileSync(join(root, "params.json"), bigParams)
    const write = run(["tool", "write", "-"], bigParams)
    expect(write.code).toBe(0)
    expect(write.out.length).toBeLessThan(20_000)
    // Peak RSS stays a small multiple of the content (it was 925 MB when the content was echoed).
    expect(write.rssKb).toBeLessThan(600 * 1024)
  })
})
