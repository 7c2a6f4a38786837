import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { BenchGroup } from "./lib/context.ts"
import { median, peakRss, runOnce } from "./lib/measure.ts"
import { ms, type Row } from "./lib/report.ts"

/**
 * What plugins cost. Start-up: `anvil tool calculator` in a repository with
 * 0, 1 and 20 user plugins (each a small tool file), against the same call
 * with none. A call: a plugin tool against the built-in calculator, both with
 * the same one plugin loaded, so the difference is the plugin tool's own path
 * (its adapter, the host's modules) and not discovery.
 */
const pluginFile = (i: number) => `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({
  name: "echo_${i}",
  description: "Echoes its text (bench plugin ${i}).",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  run: ({ text }) => text,
})
`

export const plugins: BenchGroup = {
  name: "plugins",
  description: "start-up with 0, 1 and 20 plugins; a plugin tool call against a built-in one (wall median)",
  run: async (ctx) => {
    const setups = [0, 1, 20].map((count) => {
      const base = join(ctx.work, `plugins-${count}`)
      rmSync(base, { recursive: true, force: true })
      const repo = join(base, "repo")
      const dir = join(base, "config", "anvil", "plugins")
      mkdirSync(repo, { recursive: true })
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(repo, "anvil.json"), "{}\n")
      for (let i = 0; i < count; i++) writeFileSync(join(dir, `echo-${i}.ts`), pluginFile(i))
      return { count, repo, env: { ...ctx.env, XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: base } }
    })
    ctx.log(`plugins: ${ctx.runs} interleaved rounds of anvil tool calculator with 0, 1, 20 plugins and of a plugin tool`)
    const calc = ["tool", "calculator", '{"expression":"1+1"}']
    const one = setups[1]!
    // Interleaved rounds: on a shared machine the load drifts, and every variant should see the same drift.
    const variants = [
      ...setups.map((s) => ({ argv: [ctx.binary, ...calc], env: s.env, cwd: s.repo })),
      { argv: [ctx.binary, "tool", "echo_0", '{"text":"hi"}'], env: one.env, cwd: one.repo },
    ]
    const samples: Array<Array<number>> = variants.map(() => [])
    for (const v of variants) await runOnce(v.argv, { env: v.env, cwd: v.cwd })
    for (let round = 0; round < ctx.runs; round++) {
      for (let i = 0; i < variants.length; i++) {
        const v = variants[i]!
        const run = await runOnce(v.argv, { env: v.env, cwd: v.cwd })
        if (run.exitCode !== 0) throw new Error(`${v.argv.join(" ")} exited with ${run.exitCode}`)
        samples[i]!.push(run.ms)
      }
    }
    const med = samples.map((s) => median(s))
    const rss = await Promise.all(variants.map((v) => peakRss(v.argv, { env: v.env, cwd: v.cwd })))
    const ref = `0 plugins ${ms(med[0]!)}`
    const rows: Array<Row> = setups.map((s, i) => ({
      name: `anvil tool calculator, ${s.count} plugin${s.count === 1 ? "" : "s"}`,
      value: ms(med[i]!),
      reference: ref,
      ratio: med[i]! / med[0]!,
      peakRssBytes: rss[i]!,
      ...(s.count > 0 ? { note: `${ms((med[i]! - med[0]!) / s.count)} per plugin` } : {}),
    }))
    rows.push({
      name: "plugin tool call (echo_0)",
      value: ms(med[3]!),
      reference: `built-in calculator, same plugin loaded, ${ms(med[1]!)}`,
      ratio: med[3]! / med[1]!,
      peakRssBytes: rss[3]!,
    })
    return rows
  },
}
