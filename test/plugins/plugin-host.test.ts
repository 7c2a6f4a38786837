import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { Effect } from "effect"
import { join } from "node:path"
import { makeConfig, type ConfigData } from "../../src/config/config.ts"
import { loadPlugins, pluginNotices, toolsWithPlugins, type PluginSet } from "../../src/plugins/plugin-host.ts"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { parameterJsonSchema } from "../../src/tool-framework/json-schema.ts"
import { builtinTools, callTool, project, tempDir, writeTree, type TreeSpec } from "../support/harness.ts"

// Plugins loaded in this process (Bun's runtime plugin gives them anvil/plugin and effect),
// from temp folders: every failure case stays with its plugin while the others load.

const setup = (tree: { user?: TreeSpec; project?: TreeSpec }) => {
  const root = project(tree.project ?? {})
  const config = tempDir("anvil-plugin-cfg-")
  writeTree(join(config, "anvil", "plugins"), tree.user ?? {})
  const env = { XDG_CONFIG_HOME: config, XDG_CACHE_HOME: join(config, "cache"), HOME: join(config, "home") }
  return { root, env }
}

const load = (root: string, env: Record<string, string>, data: ConfigData = {}, extra: { trustProject?: boolean; retryTimedOut?: boolean } = {}) => {
  const problems: Array<string> = []
  return loadPlugins({
    root,
    env,
    config: makeConfig(data, env),
    builtinNames: builtinNames(),
    onProblem: (m) => problems.push(m),
    ...extra,
  }).then((set) => ({ set, problems }))
}

const status = (set: PluginSet) => Object.fromEntries(set.reports.map((r) => [r.name, r.status]))
const errorOf = (set: PluginSet, name: string) => set.reports.find((r) => r.name === name)?.error

const good = `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({
  name: "good_tool",
  description: "Adds two numbers.",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  readOnly: true,
  run: ({ a, b }) => ({ sum: a + b }),
})
`

describe("loading plugins: every failure stays with its plugin", () => {
  test("syntax error, throw at import, endless top-level await, wrong api, clashes, a non-Schema: each reported; the good one loads", async () => {
    const { root, env } = setup({
      user: {
        "good.ts": good,
        "syntax.ts": "import { defineTool } from 'anvil/plugin'\nconst x = ;\n",
        "syntax2.ts": "const a = 1\n\nexport default {{{\n",
        "throws.ts": "const a = 1\nthrow new Error('broken at import')\n",
        "forever.ts": "await new Promise(() => {})\nexport default []\n",
        "api2.ts": "import { definePlugin } from 'anvil/plugin'\nexport default definePlugin({ api: 2 } as any)\n",
        "clash.ts": `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default defineTool({ name: "read", description: "x", parameters: Schema.Struct({}), run: () => "" })\n`,
        "twin.ts": good,
        "notschema.ts": `import { defineTool } from "anvil/plugin"\nexport default defineTool({ name: "plain", description: "x", parameters: { a: "string" } as any, run: () => "" })\n`,
        "nodefault.ts": "export const tool = 1\n",
        "promised.ts": `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default Promise.resolve(defineTool({ name: "later", description: "x", parameters: Schema.Struct({}), run: () => "" }))\n`,
      },
    })
    const started = performance.now()
    const { set } = await load(root, env, { plugins: { load_timeout_ms: 300 } })
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(status(set)).toEqual({
      api2: "error",
      clash: "error",
      forever: "error",
      good: "loaded",
      nodefault: "error",
      notschema: "error",
      promised: "error",
      syntax: "error",
      syntax2: "error",
      throws: "error",
      twin: "error",
    })
    expect(errorOf(set, "syntax")).toMatchObject({ file: expect.stringContaining("syntax.ts"), line: 2 })
    expect(errorOf(set, "promised")?.message).toBe("the default export is a Promise, not a tool or plugin definition; await it at the top level (export default await …)")
    // Several syntax errors: the first one's place, and how many more.
    expect(errorOf(set, "syntax2")).toMatchObject({ file: expect.stringContaining("syntax2.ts"), line: 3, message: expect.stringContaining("1 more error") })
    expect(errorOf(set, "throws")).toMatchObject({ message: "broken at import", file: expect.stringContaining("throws.ts"), line: 2 })
    expect(errorOf(set, "forever")!.message).toContain("did not finish within 300 ms")
    expect(errorOf(set, "api2")!.message).toContain("this anvil speaks api 1")
    expect(errorOf(set, "clash")!.message).toBe("tool 'read' clashes with a built-in tool; rename it")
    expect(errorOf(set, "twin")!.message).toBe("tool 'good_tool' clashes with plugin 'good'; rename it")
    expect(errorOf(set, "notschema")!.message).toContain("parameters is not a Schema")
    expect(errorOf(set, "nodefault")!.message).toContain("no default export")
    expect(set.tools.map((t) => t.name)).toEqual(["good_tool"])
    expect(pluginNotices(set)).toHaveLength(10)
    const outcome = await callTool(root, "good_tool", { a: 2, b: 3 }, { tools: set.tools, env })
    expect(outcome.envelope).toMatchObject({ status: "success", data: { sum: 5 } })
  }, 30_000)

  test("a folder plugin that does not bundle (a syntax error) is reported and leaves nothing in the cache", async () => {
    const { root, env } = setup({ user: { "broken/index.ts": "export default { nope\n" } })
    const { set } = await load(root, env)
    expect(status(set)).toEqual({ broken: "error" })
    const cache = join(env.XDG_CACHE_HOME, "anvil", "plugins")
    expect(existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith(".tmp")) : []).toEqual([])
  })

  test("run: value, Promise, Effect; ToolFailure keeps its code; sync and async throws are INTERNAL_ERROR; not readOnly asks", async () => {
    const { root, env } = setup({
      user: {
        "kinds.ts": `import { definePlugin, defineTool, ToolFailure, CurrentCall } from "anvil/plugin"
import { Effect, Schema } from "effect"
const p = Schema.Struct({ n: Schema.Number })
export default definePlugin({ api: 1, tools: [
  defineTool({ name: "k_value", description: "v", parameters: p, readOnly: true, run: ({ n }) => \`n=\${n}\` }),
  defineTool({ name: "k_promise", description: "p", parameters: p, readOnly: true, run: async ({ n }, ctx) => { ctx.progress("half"); return { text: "done", data: { twice: n * 2 } } } }),
  defineTool({ name: "k_effect", description: "e", parameters: p, readOnly: true, run: ({ n }) => Effect.gen(function* () { const call = yield* CurrentCall; return { root: call.root, n } }) }),
  defineTool({ name: "k_failure", description: "f", parameters: p, readOnly: true, run: () => { throw new ToolFailure({ code: "NOT_FOUND", message: "no such thing" }) } }),
  defineTool({ name: "k_effect_failure", description: "f", parameters: p, readOnly: true, run: () => Effect.fail(new ToolFailure({ code: "CONFLICT", message: "busy" })) }),
  defineTool({ name: "k_sync_throw", description: "t", parameters: p, readOnly: true, run: () => { throw new TypeError("sync bug") } }),
  defineTool({ name: "k_async_throw", description: "t", parameters: p, readOnly: true, run: async () => { await Promise.resolve(); throw new Error("async bug") } }),
  defineTool({ name: "k_writes", description: "w", parameters: p, run: (_, ctx) => ctx.files.write("out.txt", "written").then(() => "ok") }),
  defineTool({ name: "k_cyclic", description: "c", parameters: p, readOnly: true, run: () => { const o: any = { n: 1 }; o.self = o; return { text: "t", data: o } } }),
  defineTool({ name: "k_bigint", description: "b", parameters: p, readOnly: true, run: () => ({ big: 10n }) }),
  // An async run that resolves to an Effect: the Effect runs (its failure must not read as a success).
  defineTool({ name: "k_async_effect", description: "a", parameters: p, readOnly: true, run: (async ({ n }: { n: number }) => Effect.succeed(\`async effect \${n}\`)) as any }),
  defineTool({ name: "k_async_effect_fail", description: "a", parameters: p, readOnly: true, run: (async () => Effect.fail(new ToolFailure({ code: "NOT_FOUND", message: "gone" }))) as any }),
]})
`,
      },
    })
    const { set } = await load(root, env)
    const call = (name: string, params: unknown = { n: 2 }, options = {}) => callTool(root, name, params, { tools: set.tools, env, ...options })
    expect((await call("k_value")).envelope).toMatchObject({ status: "success", text: "# k_value\n\nn=2", data: { output: "n=2" } })
    const promised = await call("k_promise")
    expect(promised.envelope.data).toEqual({ twice: 4 })
    expect(promised.meta).toMatchObject({ progress: ["half"] })
    expect((await call("k_effect")).envelope.data).toEqual({ root, n: 2 })
    expect((await call("k_failure")).envelope.error).toMatchObject({ code: "NOT_FOUND", message: "k_failure: no such thing" })
    expect((await call("k_effect_failure")).envelope.error).toMatchObject({ code: "CONFLICT" })
    expect((await call("k_async_effect")).envelope).toMatchObject({ status: "success", data: { output: "async effect 2" } })
    expect((await call("k_async_effect_fail")).envelope.error).toMatchObject({ code: "NOT_FOUND", message: "k_async_effect_fail: gone" })
    expect((await call("k_sync_throw")).envelope.error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("sync bug") })
    expect((await call("k_async_throw")).envelope.error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("async bug") })
    expect((await call("k_value", { n: "x" })).envelope.error).toMatchObject({ code: "INVALID_PARAM" })
    // A result JSON cannot hold ends that call, not the output of the command.
    for (const name of ["k_cyclic", "k_bigint"]) {
      const { envelope } = await call(name)
      expect(envelope.error).toMatchObject({ code: "INVALID_RESULT", message: expect.stringContaining("cannot be written as JSON") })
      expect(() => JSON.stringify(envelope)).not.toThrow()
    }
    expect((await call("k_sync_throw")).envelope.error?.message).toContain("(a bug in plugin 'kinds')")
    const denied = await call("k_writes", { n: 1 }, { onAsk: () => Effect.succeed(false) })
    expect(denied.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect((await call("k_writes", { n: 1 })).envelope.status).toBe("success")
    expect(await Bun.file(join(root, "out.txt")).text()).toBe("written")
  }, 30_000)
})

describe("plugin results outside the envelope contract", () => {
  test("a bad status, an error without its code, a text that is no string, a function: INVALID_RESULT naming the plugin; an error envelope keeps its code", async () => {
    const tool = (name: string, result: string) =>
      `  defineTool({ name: "${name}", description: "r", parameters: Schema.Struct({}), readOnly: true, run: () => (${result}) as any }),\n`
    const { root, env } = setup({
      user: {
        "results.ts": `import { definePlugin, defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default definePlugin({ name: "results", api: 1, tools: [
${tool("r_bogus", `{ text: "hi", status: "bogus" }`)}${tool("r_error_bare", `{ text: "it broke", status: "error" }`)}${tool("r_error_code", `{ status: "error", text: "x", error: { code: "WHATEVER", message: "m" } }`)}${tool("r_text", `{ text: 5, status: "partial" }`)}${tool("r_error_on_success", `{ text: "t", error: { code: "NOT_FOUND", message: "m" } }`)}${tool("r_function", `() => 1`)}${tool("r_envelope", `{ status: "error", data: {}, text: "t", error: { code: "NOT_FOUND", message: "no such row", retryable: false } }`)}${tool("r_partial", `{ status: "partial", text: "half", data: { n: 1 } }`)}${tool("r_plain", `{ status: "ok" }`)}${tool("r_no_text", `{ status: "success", data: { n: 3 } }`)}${tool("r_bad_no_text", `{ status: "done", data: { n: 3 } }`)}${tool("r_list_data", `{ text: "t", data: [1, 2] }`)}${tool("r_error_value", `new Error("forgot to throw")`)}${tool("r_map", `new Map([["a", 1]])`)}${tool("r_set", `new Set([1])`)}]})
`,
      },
    })
    const { set } = await load(root, env)
    const call = async (name: string) => (await callTool(root, name, {}, { tools: set.tools, env })).envelope
    const reasons: Record<string, string> = {
      r_bogus: `its status "bogus" is none of "success", "partial", "error"`,
      r_error_bare: `status "error" needs error: {code, message}`,
      r_error_code: `status "error" needs error: {code, message}`,
      r_text: "its text must be a string, not 5",
      r_error_on_success: `it has an error but its status is "success"`,
      r_function: "it returned a function",
      r_bad_no_text: `its status "done" is none of "success", "partial", "error"`,
      r_error_value: `it returned an Error ("forgot to throw") instead of throwing it`,
      r_map: "it returned a Map, which JSON writes as {}",
      r_set: "it returned a Set, which JSON writes as {}",
    }
    for (const [name, reason] of Object.entries(reasons)) {
      const envelope = await call(name)
      expect({ name, status: envelope.status, code: envelope.error?.code }).toEqual({ name, status: "error", code: "INVALID_RESULT" })
      expect(envelope.error!.message).toContain(`${name} (plugin 'results') answered outside the tool result contract: ${reason}`)
      expect(envelope.error!.retryable).toBe(false)
    }
    expect(await call("r_envelope")).toMatchObject({ status: "error", error: { code: "NOT_FOUND", message: "r_envelope: no such row", retryable: false } })
    expect(await call("r_partial")).toMatchObject({ status: "partial", data: { n: 1 }, text: expect.stringContaining("half") })
    // An object that is not envelope-shaped is data, whatever its keys say.
    expect(await call("r_plain")).toMatchObject({ status: "success", data: { status: "ok" } })
    expect(await call("r_list_data")).toMatchObject({ status: "success", data: { value: [1, 2] } })
    // {status, data} without a text: the data is the text, as JSON.
    expect(await call("r_no_text")).toMatchObject({ status: "success", data: { n: 3 }, text: expect.stringContaining('"n": 3') })
  }, 30_000)
})

describe("plugins whose import never ends", () => {
  test("load together: three of them cost one time limit, not three; the good one loads, in order", async () => {
    const forever = "await new Promise(() => {})\nexport default []\n"
    const { root, env } = setup({ user: { "a-stuck.ts": forever, "b-stuck.ts": forever, "c-stuck.ts": forever, "d-good.ts": good } })
    const started = performance.now()
    const { set } = await load(root, env, { plugins: { load_timeout_ms: 1000 } })
    expect(performance.now() - started).toBeLessThan(2500)
    expect(set.reports.map((r) => [r.name, r.status])).toEqual([
      ["a-stuck", "error"],
      ["b-stuck", "error"],
      ["c-stuck", "error"],
      ["d-good", "loaded"],
    ])
  })
})

describe("a plugin that timed out while loading", () => {
  test("twice in a row: later runs skip it at once with the reason, until its file changes, the limit is raised or a check retries it", async () => {
    const hang = `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ name: "hang", api: 1, setup: () => { (globalThis as any).hangSetups = ((globalThis as any).hangSetups ?? 0) + 1; return new Promise(() => {}) } })\n`
    const { root, env } = setup({ user: { "hang.ts": hang, "forever.ts": "await new Promise(() => {})\nexport default []\n", "good.ts": good } })
    ;(globalThis as any).hangSetups = 0
    const limit = { plugins: { load_timeout_ms: 300 } }
    const first = await load(root, env, limit)
    expect(errorOf(first.set, "hang")).toMatchObject({ message: expect.stringMatching(/^setup failed: setup did not finish within 300 ms; if it times out on the next load too, later runs skip it/), timedOut: true })
    expect(errorOf(first.set, "forever")).toMatchObject({ message: expect.stringContaining("did not finish within 300 ms"), timedOut: true })
    expect((globalThis as any).hangSetups).toBe(1)

    // One time-out is only counted (a busy machine may miss a limit once): the next run tries again.
    const second = await load(root, env, limit)
    expect((globalThis as any).hangSetups).toBe(2)
    expect(errorOf(second.set, "hang")?.message).toContain("it timed out 2 times in a row: later runs skip it until its files change")

    const third = await load(root, env, limit)
    expect(status(third.set)).toEqual({ forever: "error", good: "loaded", hang: "error" })
    expect((globalThis as any).hangSetups).toBe(2)
    for (const name of ["hang", "forever"]) {
      expect(errorOf(third.set, name)?.message).toContain("timed out 2 times in a row while loading")
      expect(errorOf(third.set, name)?.message).toContain("skipped since, until its files change or plugins.load_timeout_ms is raised")
      expect(errorOf(third.set, name)?.message).toContain("anvil plugins check")
    }
    expect(pluginNotices(third.set).find((n) => n.includes("'hang'"))).toContain("setup did not finish within 300 ms")

    // A longer limit than the one it missed gives it a new try.
    await load(root, env, { plugins: { load_timeout_ms: 400 } })
    expect((globalThis as any).hangSetups).toBe(3)
    // So does `anvil plugins check` (retryTimedOut), and a change to its file (which starts the count again).
    await load(root, env, limit, { retryTimedOut: true })
    expect((globalThis as any).hangSetups).toBe(4)
    await load(root, env, limit)
    expect((globalThis as any).hangSetups).toBe(4)
    writeFileSync(join(env.XDG_CONFIG_HOME, "anvil", "plugins", "hang.ts"), `${hang}// changed\n`)
    await load(root, env, limit)
    expect((globalThis as any).hangSetups).toBe(5)
    await load(root, env, limit)
    expect((globalThis as any).hangSetups).toBe(6)
    await load(root, env, limit)
    expect((globalThis as any).hangSetups).toBe(6)
  }, 20_000)

  test("a load in time between two time-outs starts the count again", async () => {
    const flaky = `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ name: "flaky", api: 1, setup: () => ((globalThis as any).flakyHangs ? new Promise(() => {}) : undefined) })\n`
    const { root, env } = setup({ user: { "flaky.ts": flaky } })
    const limit = { plugins: { load_timeout_ms: 300 } }
    ;(globalThis as any).flakyHangs = true
    await load(root, env, limit)
    ;(globalThis as any).flakyHangs = false
    expect(status((await load(root, env, limit)).set)).toEqual({ flaky: "loaded" })
    ;(globalThis as any).flakyHangs = true
    expect(errorOf((await load(root, env, limit)).set, "flaky")?.message).toContain("if it times out on the next load too")
  }, 20_000)
})

describe("a plugin tool that never finishes", () => {
  test("is cancelled at plugins.call_timeout_ms: TIMEOUT naming the setting, its signal aborted; the next call runs", async () => {
    const { root, env } = setup({
      user: {
        "stuck.ts": `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default [
  defineTool({ name: "stuck", description: "s", parameters: Schema.Struct({}), readOnly: true,
    run: (_, ctx) => new Promise(() => { ctx.signal.addEventListener("abort", () => { (globalThis as any).stuckAborted = true }) }) }),
  defineTool({ name: "quick", description: "q", parameters: Schema.Struct({}), readOnly: true, run: () => "quick" }),
]
`,
      },
    })
    const { set } = await load(root, env, { plugins: { call_timeout_ms: 300 } })
    const started = performance.now()
    const stuck = await callTool(root, "stuck", {}, { tools: set.tools, env })
    expect(performance.now() - started).toBeLessThan(5000)
    expect(stuck.envelope.error).toMatchObject({ code: "TIMEOUT", retryable: true, message: expect.stringContaining("plugins.call_timeout_ms") })
    expect((globalThis as { stuckAborted?: boolean }).stuckAborted).toBe(true)
    expect((await callTool(root, "quick", {}, { tools: set.tools, env })).envelope.text).toContain("quick")
  })
})

describe("process.exit in a plugin", () => {
  test("at import: that plugin is broken, the others load; inside run: INTERNAL_ERROR, and the host goes on", async () => {
    const { root, env } = setup({
      user: {
        "exits-at-import.js": "process.exit(3)\nexport default []\n",
        "exits-in-run.ts": `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nexport default defineTool({ name: "exit_run", description: "x", readOnly: true, parameters: Schema.Struct({}), run: () => { process.exit(4) } })\n`,
        "good.ts": good,
      },
    })
    const { set } = await load(root, env)
    expect(status(set)).toEqual({ "exits-at-import": "error", "exits-in-run": "loaded", good: "loaded" })
    expect(errorOf(set, "exits-at-import")!.message).toContain("a plugin called process.exit(3)")
    const { envelope } = await callTool(root, "exit_run", {}, { tools: set.tools, env })
    expect(envelope.error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("process.exit(4)") })
    expect((await callTool(root, "good_tool", { a: 1, b: 2 }, { tools: set.tools, env })).envelope.status).toBe("success")
  }, 30_000)
})

describe("ctx.files: the workspace sandbox", () => {
  test("reads and writes inside the project; a link leading out, .. and absolute paths outside are ACCESS_DENIED", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "secret.txt"), "secret")
    const { root, env } = setup({
      user: {
        "files.ts": `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({ name: "fs_probe", description: "f", parameters: Schema.Struct({ op: Schema.String, path: Schema.String }), readOnly: true,
  run: async ({ op, path }, ctx) => op === "read" ? ctx.files.read(path) : op === "exists" ? String(await ctx.files.exists(path)) : ctx.files.write(path, op === "lone" ? "a\\ud800" : "new").then(() => "written") })
`,
      },
      project: { "in.txt": "inside\n", "link.txt": { link: join(outside, "secret.txt") } },
    })
    const { set } = await load(root, env)
    const probe = (op: string, path: string) => callTool(root, "fs_probe", { op, path }, { tools: set.tools, env }).then((o) => o.envelope)
    expect((await probe("read", "in.txt")).text).toContain("inside")
    expect((await probe("read", "link.txt")).error?.code).toBe("ACCESS_DENIED")
    expect((await probe("read", "../x")).error?.code).toBe("ACCESS_DENIED")
    expect((await probe("read", join(outside, "secret.txt"))).error?.code).toBe("ACCESS_DENIED")
    expect((await probe("write", "link.txt")).error?.code).toBe("ACCESS_DENIED")
    expect(await Bun.file(join(outside, "secret.txt")).text()).toBe("secret")
    expect((await probe("exists", "../x")).text).toContain("false")
    expect((await probe("write", "sub/new.txt")).status).toBe("success")
    expect(await Bun.file(join(root, "sub/new.txt")).text()).toBe("new")
    // A lone surrogate has no UTF-8 form: refused as a call's parameters are, nothing written.
    const lone = await probe("lone", "sub/new.txt")
    expect(lone.error).toMatchObject({ code: "INVALID_PARAM", message: expect.stringContaining("sub/new.txt was not changed: the content holds a lone UTF-16 surrogate (\\ud800) at line 1, column 2") })
    expect(await Bun.file(join(root, "sub/new.txt")).text()).toBe("new")
  }, 30_000)
})

describe("hooks", () => {
  test("a hook that keeps timing out is skipped without waiting (said once); the others, a user's guard among them, still run on every call", async () => {
    const hook = (body: string) => `import { definePlugin } from "anvil/plugin"\nimport { Effect } from "effect"\nexport default definePlugin({ api: 1, hooks: { ${body} } })\n`
    const { root, env } = setup({
      // An async hook may resolve to an Effect: it is run.
      user: { "guard.ts": hook(`"tool.before": (async ({ params }: any) => Effect.succeed(String(params.expression).includes("666") ? { deny: "not that number" } : undefined)) as any`) },
      project: {
        ".anvil/plugins/hang.ts": hook(`"tool.before": () => { (globalThis as any).hangCalls++; return new Promise(() => {}) }, "tool.after": () => new Promise(() => {})`),
      },
    })
    ;(globalThis as any).hangCalls = 0
    const { set, problems } = await load(root, env, { plugins: { hook_timeout_ms: 300 } }, { trustProject: true })
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const calc = (expression: string) => callTool(root, "calculator", { expression }, { tools, env })
    for (const expression of ["1+1", "2+2"]) expect((await calc(expression)).envelope.status).toBe("success")
    expect((globalThis as any).hangCalls).toBe(2)
    const opened = problems.filter((p) => p.includes("timed out 2 times in a row: it is skipped without waiting for the next 60 s of this session"))
    expect(opened.map((p) => p.slice(0, p.indexOf(" timed out")))).toEqual(["plugin 'hang': hook tool.before", "plugin 'hang': hook tool.after"])
    const reported = problems.length
    const started = performance.now()
    expect((await calc("3+3")).envelope.data).toMatchObject({ result: "6" })
    expect(performance.now() - started).toBeLessThan(300)
    expect((globalThis as any).hangCalls).toBe(2)
    expect(problems.length).toBe(reported)
    // The user's guard was never skipped.
    expect((await calc("666")).envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'guard': not that number" })
  }, 20_000)

  test("order user → project alphabetically; before changes and denies; after rewrites; a failing or slow hook is skipped and reported", async () => {
    const hook = (name: string, body: string) => `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ api: 1, hooks: { ${body} } })\n// ${name}\n`
    const { root, env } = setup({
      user: {
        "b-user.ts": hook("b", `"tool.before": ({ tool, params }) => { (globalThis as any).order.push("b-user"); return tool === "calculator" ? { params: { ...params, expression: "6*7" } } : undefined }`),
        "a-user.ts": hook("a", `"tool.before": () => { (globalThis as any).order = ["a-user"]; throw new Error("hook bug") }`),
        "slow.ts": hook("s", `"tool.after": () => new Promise(() => {})`),
      },
      project: {
        ".anvil/plugins/z-proj.ts": hook("z", `"tool.before": ({ tool }) => { (globalThis as any).order.push("z-proj"); return tool === "glob" ? { deny: "no globbing here" } : undefined }, "tool.after": ({ result }) => ({ text: result.text + "\\n(checked)" })`),
      },
    })
    const { set, problems } = await load(root, env, { plugins: { hook_timeout_ms: 200 } }, { trustProject: true })
    expect(set.reports.map((r) => r.name)).toEqual(["a-user", "b-user", "slow", "z-proj"])
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const calc = await callTool(root, "calculator", { expression: "1+1" }, { tools, env })
    expect(calc.envelope.data).toMatchObject({ expression: "6*7", result: "42" })
    expect(calc.envelope.text).toEndWith("(checked)")
    expect((globalThis as any).order).toEqual(["a-user", "b-user", "z-proj"])
    expect(problems.some((p) => p.includes("'a-user': hook tool.before failed and was skipped: hook bug"))).toBe(true)
    expect(problems.some((p) => p.includes("'slow': hook tool.after failed and was skipped: timed out after 200 ms"))).toBe(true)
    // The permission check sees the parameters tool.before settled on.
    const asked: Array<unknown> = []
    await callTool(root, "calculator", { expression: "1+1" }, {
      tools,
      env,
      configOverrides: { permission: { calculator: "ask" } },
      onAsk: (request) => Effect.sync(() => (asked.push(request.params), true)),
    })
    expect(asked).toEqual([{ expression: "6*7" }])
    const glob = await callTool(root, "glob", { pattern: "*" }, { tools, env })
    expect(glob.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'z-proj': no globbing here" })
  }, 30_000)

  test("tool.after data that JSON cannot hold (a cycle, a BigInt) is reported and ignored; the call's result stands", async () => {
    const { root, env } = setup({
      user: {
        "cyc.ts": `import { definePlugin } from "anvil/plugin"
export default definePlugin({ api: 1, hooks: { "tool.after": ({ params }) => { const o: any = { big: 1n }; if (params.expression === "1+1") { delete o.big; o.self = o } return { text: "replaced", data: o } } } })
`,
      },
    })
    const { set, problems } = await load(root, env)
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    for (const expression of ["1+1", "2+2"]) {
      const { envelope } = await callTool(root, "calculator", { expression }, { tools, env })
      expect(envelope.status).toBe("success")
      expect(envelope.data).toMatchObject({ expression })
      expect(() => JSON.stringify(envelope)).not.toThrow()
    }
    expect(problems.filter((p) => p.includes("'cyc': tool.after returned data that is not a JSON object"))).toHaveLength(2)
  }, 30_000)

  test("an answer its hook does not take (a typo such as {denied}, a number, a wrong permission word) is reported and ignored", async () => {
    const { root, env } = setup({
      user: {
        "typo.ts": `import { definePlugin } from "anvil/plugin"
export default definePlugin({ api: 1, hooks: {
  "tool.before": ({ params }) => params.expression === "1+1" ? { denied: "no" } : params.expression === "2+2" ? 42 : { permission: "yes" },
  "tool.after": () => ({ txt: "x" }),
  "permission.ask": () => true,
  "prompt.system": () => ["a"],
} })
`,
      },
    })
    const { set, problems } = await load(root, env)
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    for (const expression of ["1+1", "2+2", "3+3"]) {
      const { envelope } = await callTool(root, "calculator", { expression }, { tools, env })
      expect(envelope.status).toBe("success")
    }
    expect(problems.filter((p) => p.startsWith("plugin 'typo': hook tool.before answered "))).toEqual([
      `plugin 'typo': hook tool.before answered {"denied":"no"}, which is not {params}, {deny: "reason"}, {permission: "allow" | "ask", reason?}, {stop: "reason"} or nothing; ignored`,
      expect.stringContaining("answered 42, which is not"),
      expect.stringContaining(`answered {"permission":"yes"}, which is not`),
    ])
    expect(problems.filter((p) => p.includes(`hook tool.after answered {"txt":"x"}, which is not {text?, data?, stop?} or nothing; ignored`))).toHaveLength(3)
    const answers = await set.hooks.call("permission.ask", { tool: "write", params: {} })
    expect(answers).toEqual([{ plugin: "typo", value: undefined }])
    expect(problems.at(-1)).toBe(`plugin 'typo': hook permission.ask answered true, which is not "allow", "deny", "ask" or nothing; ignored`)
  }, 30_000)

  test("{stop} ends the turn: before the call it does not run (CANCELLED, the reason only in context.hook_stopped); after it the result stands", async () => {
    const { root, env } = setup({
      user: {
        "halt.ts": `import { definePlugin } from "anvil/plugin"
export default definePlugin({ name: "halt", api: 1, hooks: {
  "tool.before": ({ params }) => params.expression === "1+1" ? { stop: "quota reached" } : undefined,
  "tool.after": ({ params }) => params.expression === "2+2" ? { stop: "seen enough" } : undefined,
} })
`,
      },
    })
    const { set, problems } = await load(root, env)
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const before = await callTool(root, "calculator", { expression: "1+1" }, { tools, env })
    expect(before.envelope.error).toMatchObject({ code: "CANCELLED", message: "The Calculator call was not run: plugin 'halt' ended the turn." })
    expect(before.envelope.text).not.toContain("quota reached")
    expect(before.envelope.context.hook_stopped).toEqual({ plugin: "halt", hook: "tool.before", reason: "quota reached" })
    const after = await callTool(root, "calculator", { expression: "2+2" }, { tools, env })
    expect(after.envelope.status).toBe("success")
    expect(after.envelope.data).toMatchObject({ result: "4" })
    expect(after.envelope.context.hook_stopped).toEqual({ plugin: "halt", hook: "tool.after", reason: "seen enough" })
    expect(problems).toEqual([])
  }, 30_000)

  test("a plugin tool takes what its JSON Schema shows the model: null for an optional parameter (absent), \"Infinity\" for a number", async () => {
    const { root, env } = setup({
      user: {
        "opt.ts": `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({ name: "opt_tool", description: "x", readOnly: true,
  parameters: Schema.Struct({ n: Schema.optional(Schema.Number), limit: Schema.Number, label: Schema.optional(Schema.String) }),
  run: ({ n, limit, label }) => ({ n: n === undefined ? "absent" : n, limit: String(limit), label: label ?? "absent" }) })
`,
      },
    })
    const { set, problems } = await load(root, env)
    expect(problems).toEqual([])
    const tools = toolsWithPlugins(builtinTools, set, () => undefined)
    const schema = JSON.stringify(parameterJsonSchema(tools.find((t) => t.name === "opt_tool")!))
    expect(schema).toContain('{"type":"null"}')
    const { envelope } = await callTool(root, "opt_tool", { n: null, limit: "Infinity", label: null }, { tools, env })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ n: "absent", limit: "Infinity", label: "absent" })
    // What neither form takes is still refused, naming the field.
    const bad = await callTool(root, "opt_tool", { limit: "many" }, { tools, env })
    expect(bad.envelope.error).toMatchObject({ code: "INVALID_PARAM" })
    expect(bad.envelope.error!.message).toContain("limit")
  }, 30_000)

  test("shell.env: names with '=' or NUL and values that are not text are reported and left out; the good ones reach bash", async () => {
    const { root, env } = setup({
      user: { "envy.ts": `import { definePlugin } from "anvil/plugin"
export default definePlugin({ api: 1, hooks: { "shell.env": () => ({ GOOD: "yes", "A\u0000B": "x", "C=D": "y", E: "v\u0000w", F: 5 }) } })
` },
    })
    const { set, problems } = await load(root, env)
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const { envelope } = await callTool(root, "bash", { command: "echo good=$GOOD" }, { tools, env })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ stdout: "good=yes" })
    expect(problems.filter((p) => p.includes("'envy': shell.env variable"))).toHaveLength(4)
  }, 30_000)
})

describe("trust", () => {
  test("a project plugin is skipped until trusted; a change asks again; --trust-plugins loads it for one run; disabled stays off", async () => {
    const { root, env } = setup({ project: { ".anvil/plugins/proj.ts": good, ".anvil/plugins/off.ts": good.replace("good_tool", "off_tool") } })
    const first = await load(root, env, { plugins: { disabled: ["off"] } })
    expect(status(first.set)).toEqual({ off: "disabled", proj: "untrusted" })
    expect(pluginNotices(first.set)[0]).toContain("run 'anvil plugins trust proj'")
    expect((await load(root, env, {}, { trustProject: true })).set.reports.find((r) => r.name === "proj")).toMatchObject({ status: "loaded", trust: "assumed" })
    await Effect.runPromise(makeTrust({ root, env }).trust({ kind: "plugin", name: "proj", content: { path: join(root, ".anvil/plugins/proj.ts") } }))
    expect(status((await load(root, env, { plugins: { disabled: ["off"] } })).set)).toEqual({ off: "disabled", proj: "loaded" })
    writeFileSync(join(root, ".anvil/plugins/proj.ts"), `${good}// changed\n`)
    const changed = (await load(root, env)).set.reports.find((r) => r.name === "proj")
    expect(changed).toMatchObject({ status: "untrusted", trust: "changed" })
  }, 30_000)
})
