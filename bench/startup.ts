import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { BenchGroup } from "./lib/context.ts"
import { measure } from "./lib/measure.ts"
import { mib, ms, type Row } from "./lib/report.ts"

/**
 * Process start. The reference is `true` (/usr/bin/true or /bin/true): a
 * process that does nothing, i.e. the cost of spawning anything at all.
 * `anvil tool read` of a small file is compared with `anvil --version` in CPU
 * time (the child's rusage): the goal is a tool call that starts about as fast
 * as the binary itself, and CPU time stays meaningful on a loaded machine
 * where wall time does not.
 */
export const startup: BenchGroup = {
  name: "startup",
  description: "anvil --version and a trivial tool call against `true` (wall median, peak RSS); anvil tool read against anvil --version (CPU median)",
  run: async (ctx) => {
    const trueBin = Bun.which("true") ?? "/bin/true"
    const options = { runs: ctx.runs, env: ctx.env, cwd: ctx.work }
    ctx.log(`startup: ${ctx.runs} runs each of true, anvil --version, anvil tool calculator, anvil tool read`)
    // A small project of its own: one 20-line file, no configuration, no plugins.
    const project = join(ctx.work, "startup-project")
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, "anvil.json"), "{}\n")
    writeFileSync(join(project, "small.txt"), Array.from({ length: 20 }, (_, i) => `line ${i + 1} of a small file`).join("\n") + "\n")
    const reference = await measure([trueBin], options)
    const version = await measure([ctx.binary, "--version"], options)
    const calc = await measure([ctx.binary, "tool", "calculator", '{"expression":"1+1"}'], options)
    const read = await measure([ctx.binary, "tool", "read", '{"path":"small.txt"}'], { ...options, cwd: project })
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
      {
        name: "anvil tool read, small file (CPU)",
        value: ms(read.medianCpuMs),
        reference: `anvil --version ${ms(version.medianCpuMs)}`,
        ratio: read.medianCpuMs / version.medianCpuMs,
        peakRssBytes: read.peakRssBytes,
        targets: [{ label: "CPU ≤ 2x anvil --version", pass: read.medianCpuMs <= 2 * version.medianCpuMs }],
        note: `wall median ${ms(read.medianMs)} vs ${ms(version.medianMs)}`,
      },
    ]
    return rows
  },
}
