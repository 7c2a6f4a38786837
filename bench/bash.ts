import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median, peakRss, runOnce } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

/** MiB of output: 1 GiB, the figure; ANVIL_BENCH_BASH_MIB=256 (say) for a quicker look. */
const MIB = Number(process.env.ANVIL_BENCH_BASH_MIB ?? 1024)
const SIZE = MIB * 1024 ** 2
const SIZE_NAME = MIB % 1024 === 0 ? `${MIB / 1024} GiB` : `${MIB} MiB`
/** 56-byte lines (the last one cut), from a shell pipeline: no input file needed. */
const PRODUCER = `yes "the quick brown fox jumps over the lazy dog 0123456789" | head -c ${SIZE}`

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

/**
 * Wall and CPU time of each program: `runs` rounds that run them one after
 * the other (the load of a shared machine hits all alike), cleaning the
 * spill folder after each run. No warm-up: the input is a pipeline, not a
 * file to cache, and each run takes seconds.
 */
const rounds = async (programs: ReadonlyArray<ReadonlyArray<string>>, dir: string, ctx: BenchContext, runs: number) => {
  const wall = programs.map(() => [] as Array<number>)
  const cpu = programs.map(() => [] as Array<number>)
  for (let i = 0; i < runs; i++) {
    for (const [k, argv] of programs.entries()) {
      const run = await runOnce(argv, { cwd: dir, env: ctx.env })
      clean(dir)
      if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${run.exitCode}`)
      wall[k]!.push(run.ms)
      cpu[k]!.push(run.cpuMs)
    }
  }
  return programs.map((_, k) => ({ ms: median(wall[k]!), cpuMs: median(cpu[k]!), wall: wall[k]! }))
}

/**
 * The median of each round's own ratio: the disk of a shared machine changes
 * its speed 2-4x from minute to minute, which a ratio of medians taken over
 * different minutes carries into the figure, while the two runs of one round
 * met about the same disk.
 */
const pairedRatio = (runs: ReadonlyArray<number>, references: ReadonlyArray<number>): number =>
  median(runs.map((ms, i) => ms / references[i]!))

/**
 * The bash tool streaming 1 GiB of output: the model gets head and tail, the
 * whole GiB goes to the spill file, and memory must not grow with the output.
 * The command writes its output straight into the spill file, so the honest
 * reference is the same pipeline writing to a file (second row, goal 1.2x);
 * the first row keeps the reference, the pipeline into /dev/null,
 * which no spilling tool can match on a disk where the write alone costs more
 * than 1.5x it (the note says how much it costs in that run).
 */
export const bash: BenchGroup = {
  name: "bash",
  description: `anvil tool bash printing ${SIZE_NAME} (spilled whole), against sh -c '… >/dev/null' and '… >file'`,
  run: async (ctx) => {
    const names = [`anvil tool bash, ${SIZE_NAME} of output`, `anvil tool bash, ${SIZE_NAME} of output, against writing it to a file`]
    if (!(await registeredTools(ctx)).has("bash")) {
      return names.map((n) => skippedRow(n, "the bash tool is not registered in this build; rebuild with `bun bench/run.ts --build`"))
    }
    const dir = prepare(ctx)
    clean(dir)
    // Each run moves the whole output through a pipe and onto the disk: three rounds keep the group near a minute.
    const runs = Math.max(1, Math.min(ctx.runs, 3))
    const anvil = [ctx.binary, "tool", "bash", JSON.stringify({ command: PRODUCER })]
    const devNull = ["/bin/sh", "-c", `${PRODUCER} >/dev/null`]
    const toFile = ["/bin/sh", "-c", `${PRODUCER} >reference.out`]

    ctx.log(`bash: ${runs} rounds of sh >/dev/null, sh >file and anvil tool bash (${SIZE_NAME} each)`)
    const [nullRun, fileRun, anvilRun] = await rounds([devNull, toFile, anvil], dir, ctx, runs)
    const rss = await peakRss(anvil, { cwd: dir, env: ctx.env })
    clean(dir)
    // What anvil occupies anyway (runtime, tools): the same call on a command that prints nothing.
    const idle = await peakRss([ctx.binary, "tool", "bash", JSON.stringify({ command: "true" })], { cwd: dir, env: ctx.env })
    clean(dir)

    // The figures count only if the tool did the job: the whole output on disk, head and tail shown.
    const envelope = await toolEnvelope(ctx, dir, "bash", { command: PRODUCER })
    const spill = typeof envelope.data.output_path === "string" ? join(dir, envelope.data.output_path) : ""
    const spilled = spill !== "" && existsSync(spill) ? statSync(spill).size : 0
    const shown = typeof envelope.data.stdout === "string" ? envelope.data.stdout : ""
    clean(dir)
    const correct = envelope.status === "partial" && spilled === SIZE && shown.includes("lines omitted")
    const whole = { label: `spills the whole ${SIZE_NAME}`, pass: correct }
    const wrong = correct ? "" : `; the envelope was wrong: status ${envelope.status}, spilled ${mib(spilled)}`
    const cpu = (run: { cpuMs: number }) => ms(run.cpuMs)
    // A process's resource usage holds the descendants it waited for: sh's holds yes and head, and anvil's now holds
    // the command too (6425acf's binary reported 0.38 s for 1 GiB, later ones 2.5 s, while perf stat gives both the
    // same CPU for anvil and command together). Both figures are thus the whole job's.
    const cpuNote = (reference: { cpuMs: number }) => `CPU: anvil with the command ${cpu(anvilRun!)}; sh with yes and head ${cpu(reference)}`

    const ratio = pairedRatio(anvilRun!.wall, nullRun!.wall)
    const fileRatio = pairedRatio(anvilRun!.wall, fileRun!.wall)
    const diskCost = fileRun!.ms / nullRun!.ms
    return [
      {
        name: names[0]!,
        value: ms(anvilRun!.ms),
        reference: `sh >/dev/null ${ms(nullRun!.ms)}`,
        ratio,
        peakRssBytes: rss,
        targets: [{ label: "ratio <= 1.5x", pass: ratio <= 1.5 }, { label: "peak RSS <= 150 MiB", pass: rss <= 150 * 1024 * 1024 }, whole],
        note:
          `peak RSS ${mib(rss)} against ${mib(idle)} for a call that prints nothing; ${cpuNote(nullRun!)}; ` +
          `sh writing the same output to a file takes ${ms(fileRun!.ms)}: the disk write alone costs ${diskCost.toFixed(2)}x the /dev/null baseline` +
          (diskCost > 1.5 ? ", more than this row's goal allows anything that saves the output" : "") +
          wrong,
      } satisfies Row,
      {
        name: names[1]!,
        value: ms(anvilRun!.ms),
        reference: `sh >file ${ms(fileRun!.ms)}`,
        ratio: fileRatio,
        peakRssBytes: rss,
        // The goal for what anvil adds: start-up, counting the lines of the file, reading head and tail back.
        targets: [{ label: "ratio <= 1.2x", pass: fileRatio <= 1.2 }, whole],
        note:
          `the same runs as the row above, against the same bytes written to a file by sh (${cpuNote(fileRun!)}); ` +
          `each ratio is the median of the rounds' own (${runs} rounds, the runs of a round one after the other); ` +
          `the command writes straight into the spill file and anvil counts its lines as it grows${wrong}`,
      } satisfies Row,
    ]
  },
}
