import type { BenchGroup } from "./lib/context.ts"
import { measure } from "./lib/measure.ts"
import { mib, ms, type Row } from "./lib/report.ts"

/**
 * Process start. The reference is `true` (/usr/bin/true or /bin/true): a
 * process that does nothing, i.e. the cost of spawning anything at all.
 */
export const startup: BenchGroup = {
  name: "startup",
  description: "anvil --version and a trivial tool call against `true` (wall median, peak RSS)",
  run: async (ctx) => {
    const trueBin = Bun.which("true") ?? "/bin/true"
    const options = { runs: ctx.runs, env: ctx.env, cwd: ctx.work }
    ctx.log(`startup: ${ctx.runs} runs each of true, anvil --version, anvil tool calculator`)
    const reference = await measure([trueBin], options)
    const version = await measure([ctx.binary, "--version"], options)
    const calc = await measure([ctx.binary, "tool", "calculator", '{"expression":"1+1"}'], options)
    const ref = `true ${ms(reference.medianMs)}`
    const rows: Array<Row> = [
      {
        name: "anvil --version",
        value: ms(version.medianMs),
        reference: ref,
        ratio: version.medianMs / reference.medianMs,
        peakRssBytes: version.peakRssBytes,
        targets: [
          { label: "median < 15 ms", pass: version.medianMs < 15 },
          { label: "peak RSS < 40 MiB", pass: version.peakRssBytes < 40 * 1024 * 1024 },
        ],
      },
      {
        name: "anvil tool calculator",
        value: ms(calc.medianMs),
        reference: ref,
        ratio: calc.medianMs / reference.medianMs,
        peakRssBytes: calc.peakRssBytes,
        note: `the runtime (Effect, tool pipeline) costs ${ms(calc.medianMs - version.medianMs)} and ${mib(
          Math.max(0, calc.peakRssBytes - version.peakRssBytes),
        )} over --version`,
      },
    ]
    return rows
  },
}
