import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeToolRuntime } from "../src/runtime.ts"
import { defineTool } from "../src/tool-framework/definition.ts"
import { ToolRunner } from "../src/tool-framework/runner.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median } from "./lib/measure.ts"
import { ms, type Row } from "./lib/report.ts"

/** Timed runs per figure: each writes tens of megabytes, so fewer than the default. */
const MAX_RUNS = 9

interface Shape {
  readonly name: string
  /** The tool's result: data.content and a text that ends with it, as git_diff answers. */
  readonly content: string
  readonly goal: number
}

/** A diff-like text: `files` hunks of lines, with some non-Latin-1 characters (a 16-bit string, as real diffs often are). */
const diffLike = (files: number, unicode: boolean): string => {
  const out: Array<string> = []
  for (let f = 0; f < files; f++) {
    out.push(`diff --git a/src/file${f}.ts b/src/file${f}.ts`, `index 1234567..89abcde 100644`, `--- a/src/file${f}.ts`, `+++ b/src/file${f}.ts`, `@@ -1,12 +1,13 @@`)
    for (let l = 0; l < 16; l++) out.push(`${l % 5 === 0 ? "+" : " "}export const value${f}_${l} = "${l}" // a "quoted" \\ line${unicode && l === 3 ? " ✓ ünï" : ""}`)
  }
  return out.join("\n")
}

/**
 * The framework step after a tool with a big answer — render the text,
 * truncate it for the model, spill the whole envelope as JSON and its text
 * beside it, build execution_meta — run in process through the real
 * ToolRunner with a tool that hands back a prebuilt result. The reference is
 * the plain way to the same two files: JSON.stringify of the envelope the
 * step spills, and both files written whole (Bun.write).
 */
export const spill: BenchGroup = {
  name: "spill",
  description: "the truncation and spill step after a tool with a multi-megabyte answer (in process), against JSON.stringify + writing the same files",
  run: async (ctx: BenchContext) => {
    const shapes: ReadonlyArray<Shape> = [
      { name: "10 MB git_diff-like result", content: diffLike(10_000, true), goal: 1 },
      { name: "2 MB Latin-1 result", content: diffLike(2_000, false), goal: 1 },
    ]
    const root = join(ctx.work, "spill")
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, "anvil.json"), "{}\n")
    const spillDir = join(root, ".anvil", "tool-output")
    const clear = () => {
      for (const name of readdirSync(spillDir, { withFileTypes: true })) if (name.name.startsWith("tool_") || name.name.startsWith("ref_")) rmSync(join(spillDir, name.name))
    }
    let current = ""
    const bigTool = defineTool({
      name: "big_answer",
      title: "BigAnswer",
      description: "Bench tool: hands back a prebuilt result.",
      parameters: Schema.Struct({}),
      run: () => Effect.succeed({ data: { content: current, files: [{ path: "a", additions: 1 }] }, text: `3 files changed.\n\n${current}` }),
    })
    const runtime = ManagedRuntime.make(makeToolRuntime({ cwd: root, env: {}, root, tools: [bigTool] }) as Layer.Layer<ToolRunner>)
    const rows: Array<Row> = []
    try {
      const runner = await runtime.runPromise(Effect.gen(function* () {
        return yield* ToolRunner
      }))
      const step = async () => {
        const started = performance.now()
        const outcome = await Effect.runPromise(runner.run({ name: "big_answer", params: {} }))
        const elapsed = performance.now() - started
        if (outcome.envelope.data.truncated !== true) throw new Error("the bench result was not truncated")
        return elapsed
      }
      for (const shape of shapes) {
        current = shape.content
        await step()
        clear()
        // The envelope as the step spills it, for the reference (time_ms as the step had it).
        const envelope = {
          status: "success",
          data: { content: current, files: [{ path: "a", additions: 1 }] },
          text: `# BigAnswer\n\n3 files changed.\n\n${current}`,
          stats: { time_ms: 0 },
          context: { cwd: ".", params_input: {} },
        }
        const reference = async () => {
          const started = performance.now()
          const json = JSON.stringify(envelope, null, 2)
          await Bun.write(join(spillDir, "ref_a.json"), json)
          await Bun.write(join(spillDir, "ref_a.output.txt"), envelope.text)
          return performance.now() - started
        }
        const ours: Array<number> = []
        const theirs: Array<number> = []
        const runs = Math.min(ctx.runs, MAX_RUNS)
        for (let i = 0; i < runs; i++) {
          ours.push(await step())
          theirs.push(await reference())
          clear()
        }
        const a = median(ours)
        const b = median(theirs)
        const ratio = a / b
        ctx.log(`spill: ${shape.name}: ${ms(a)} against ${ms(b)}`)
        rows.push({
          name: `truncate + spill step, ${shape.name}`,
          value: ms(a),
          reference: `JSON.stringify + Bun.write ${ms(b)}`,
          ratio,
          targets: [{ label: `ratio <= ${shape.goal}x`, pass: ratio <= shape.goal }],
          note: `${(Buffer.byteLength(envelope.text) / 1e6).toFixed(1)} MB text; the step also renders, truncates and builds the meta`,
        })
      }
    } finally {
      await runtime.dispose()
      rmSync(root, { recursive: true, force: true })
    }
    return rows
  },
}
