import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median, peakRss, runOnce } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

const GIB = 1024 ** 3
/** 1 GiB of 56-byte lines (the last one cut), from a shell pipeline: no input file needed. */
const PRODUCER = `yes "the quick brown fox jumps over the lazy dog 0123456789" | head -c ${GIB}`

/** bench/.work/bash: an empty anvil project whose spill folder is emptied after every run (1 GiB each). */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "bash")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  return dir
}

const clean = (dir: string) => {
  rmSync(join(dir, ".anvil"), { recursive: true, force: true })
  rmSync(join(dir, "reference.out"), { force: true })
}

/** Wall time of `argv`: one warm-up, then `runs` timed runs, cleaning the spill folder after each. */
const timed = async (argv: ReadonlyArray<string>, dir: string, ctx: BenchContext, runs: number) => {
  const samples: Array<number> = []
  for (let i = 0; i <= runs; i++) {
    const run = await runOnce(argv, { cwd: dir, env: ctx.env })
    clean(dir)
    if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${run.exitCode}`)
    if (i > 0) samples.push(run.ms)
  }
  return median(samples)
}

/**
 * The bash tool streaming 1 GiB of output: the model gets head and tail, the
 * whole GiB goes to the spill file, and memory must not grow with the output.
 * References: the same pipeline into /dev/null (the target's baseline) and
 * into a file (the same disk write the spill costs).
 */
export const bash: BenchGroup = {
  name: "bash",
  description: "anvil tool bash printing 1 GiB (spilled whole), against sh -c '… >/dev/null' and '… >file'",
  run: async (ctx) => {
    const name = "anvil tool bash, 1 GiB of output"
    if (!(await registeredTools(ctx)).has("bash")) {
      return [skippedRow(name, "the bash tool is not registered in this build; rebuild with `bun bench/run.ts --build`")]
    }
    const dir = prepare(ctx)
    clean(dir)
    // Each run moves 1 GiB through a pipe and onto the disk: a few runs are enough for a median.
    const runs = Math.max(1, Math.min(ctx.runs, 3))
    const anvil = [ctx.binary, "tool", "bash", JSON.stringify({ command: PRODUCER })]
    const devNull = ["/bin/sh", "-c", `${PRODUCER} >/dev/null`]
    const toFile = ["/bin/sh", "-c", `${PRODUCER} >reference.out`]

    ctx.log(`bash: ${runs} runs each of sh >/dev/null, sh >file and anvil tool bash (1 GiB each)`)
    const nullMs = await timed(devNull, dir, ctx, runs)
    const fileMs = await timed(toFile, dir, ctx, runs)
    const anvilMs = await timed(anvil, dir, ctx, runs)
    const rss = await peakRss(anvil, { cwd: dir, env: ctx.env })
    clean(dir)
    // What anvil occupies anyway (runtime, tools): the same call on a command that prints nothing.
    const idle = await peakRss([ctx.binary, "tool", "bash", JSON.stringify({ command: "true" })], { cwd: dir, env: ctx.env })
    clean(dir)

    // The figures count only if the tool did the job: the whole GiB on disk, head and tail shown.
    const envelope = await toolEnvelope(ctx, dir, "bash", { command: PRODUCER })
    const spill = typeof envelope.data.output_path === "string" ? join(dir, envelope.data.output_path) : ""
    const spilled = spill !== "" && existsSync(spill) ? statSync(spill).size : 0
    const shown = typeof envelope.data.stdout === "string" ? envelope.data.stdout : ""
    clean(dir)
    const correct = envelope.status === "partial" && spilled === GIB && shown.includes("lines omitted")

    const ratio = anvilMs / nullMs
    return [
      {
        name,
        value: ms(anvilMs),
        reference: `sh >/dev/null ${ms(nullMs)}`,
        ratio,
        peakRssBytes: rss,
        targets: [
          { label: "ratio <= 1.5x", pass: ratio <= 1.5 },
          { label: "grows < 100 MiB over idle", pass: rss - idle < 100 * 1024 * 1024 },
          { label: "spills the whole GiB", pass: correct },
        ],
        note:
          `peak RSS ${mib(rss)} against ${mib(idle)} for a call that prints nothing; ` +
          `sh writing the same GiB to a file takes ${ms(fileMs)} (anvil is ${(anvilMs / fileMs).toFixed(2)}x that): ` +
          `the spill's disk write alone costs ${(fileMs / nullMs).toFixed(2)}x the /dev/null baseline` +
          (correct ? "" : `; the envelope was wrong: status ${envelope.status}, spilled ${mib(spilled)}`),
      } satisfies Row,
    ]
  },
}
