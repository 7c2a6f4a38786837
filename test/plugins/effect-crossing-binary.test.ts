import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// In the binary a plugin's `effect` is a copy apart from anvil's own (build.ts, effect-index.ts). What a plugin
// hands anvil made with its copy — Effects, failures, services, Layers, Schema classes, finalizers — must work
// when anvil runs and reads it: checked here through the compiled binary.
setDefaultTimeout(120_000)

const plugin = `import { CurrentCall, definePlugin, defineTool, Files, ToolFailure } from "anvil/plugin"
import { Context, Data, Effect, Layer, Schema } from "effect"
import { writeFileSync } from "node:fs"

class Oops extends Data.TaggedError("Oops")<{ readonly message: string }> {}
class Point extends Schema.Class<Point>("Point")({ x: Schema.Number, at: Schema.optional(Schema.Date) }) {}
class Greeter extends Context.Service<Greeter, { readonly greet: (n: string) => string }>()("crossing/Greeter") {}
const tool = (name: string, run: (p: any, ctx: any) => unknown, parameters: any = Schema.Struct({})) =>
  defineTool({ name, description: name, parameters, readOnly: true, run: run as never })

export default definePlugin({
  name: "crossing",
  api: 1,
  tools: [
    tool("c_fail", () => Effect.fail(new ToolFailure({ code: "NOT_FOUND", message: "failed with ToolFailure" }))),
    tool("c_yield", () => Effect.gen(function* () { yield* new ToolFailure({ code: "CONFLICT", message: "yielded ToolFailure" }) })),
    tool("c_tagged", () => Effect.fail(new Oops({ message: "own tagged error" }))),
    tool("c_class", (p: Point) => \`\${p instanceof Point} \${p.x} \${p.at instanceof Date ? p.at.toISOString() : "-"}\`, Point),
    tool("c_services", () =>
      Effect.gen(function* () {
        const call = yield* CurrentCall
        const files = yield* Files
        const greeter = yield* Greeter
        return greeter.greet(yield* Effect.promise(() => files.read("notes.txt"))) + (call.root.length > 0 ? " in root" : "")
      }).pipe(Effect.provide(Layer.succeed(Greeter, { greet: (n: string) => "hello " + n.trim() })))),
    tool("c_layer_fails", () => Effect.void.pipe(Effect.provide(Layer.effect(Greeter, Effect.fail(new ToolFailure({ code: "EXECUTION_ERROR", message: "layer failed" })))))),
    tool("c_finalizer", (_p, ctx) =>
      Effect.acquireRelease(Effect.void, () => Effect.sync(() => writeFileSync(ctx.root + "/released.txt", "released"))).pipe(Effect.andThen(Effect.never), Effect.scoped)),
  ],
  hooks: {
    "tool.after": (e: any) => (e.tool === "c_services" ? Effect.succeed({ text: "after: " + e.result.text }) : e.tool === "c_class" ? Effect.fail(new Oops({ message: "hook failed as an Effect" })) : undefined),
  },
  setup: () => Effect.succeed({ tools: [tool("c_from_setup", () => Effect.succeed("from setup"))] }),
})
`

describe("a plugin's own effect copy and anvil's, through the binary", () => {
  test("Effects, failures, services, Layers, Schema classes and finalizers cross both ways", async () => {
    const root = project({ "notes.txt": "world\n" })
    const base = tempDir("anvil-crossing-env-")
    const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
    mkdirSync(env.HOME, { recursive: true })
    writeTree(join(env.XDG_CONFIG_HOME, "anvil"), { "anvil.json": JSON.stringify({ plugins: { call_timeout_ms: 1000 } }), "plugins/crossing.ts": plugin })
    const call = async (name: string, params = "{}") => {
      const r = await runBinary(["tool", name, params], { cwd: root, env })
      return { ...(JSON.parse(r.stdout) as { status: string; text: string; data: any; error?: { code: string; message: string } }), stderr: r.stderr }
    }
    expect((await call("c_fail")).error).toMatchObject({ code: "NOT_FOUND", message: "c_fail: failed with ToolFailure" })
    expect((await call("c_yield")).error).toMatchObject({ code: "CONFLICT", message: "c_yield: yielded ToolFailure" })
    expect((await call("c_tagged")).error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("own tagged error (a bug in plugin 'crossing')") })
    const point = await call("c_class", '{"x":3,"at":"2020-01-02T03:04:05.000Z"}')
    expect(point.data.output).toBe("true 3 2020-01-02T03:04:05.000Z")
    expect(point.stderr).toContain("plugin 'crossing': hook tool.after failed and was skipped: hook failed as an Effect")
    expect((await call("c_services")).text).toBe("# c_services\n\nafter: hello world in root")
    expect((await call("c_layer_fails")).error).toMatchObject({ code: "EXECUTION_ERROR", message: "c_layer_fails: layer failed" })
    expect((await call("c_from_setup")).data.output).toBe("from setup")
    // Cancelled at plugins.call_timeout_ms: the plugin's scope closes, its finalizer runs.
    expect((await call("c_finalizer")).error?.code).toBe("TIMEOUT")
    expect(readFileSync(join(root, "released.txt"), "utf8")).toBe("released")
  })
})
