/**
 * Timing and memory of a child process, measured the same way for anvil and
 * for the reference program it is compared with: wall time from spawn to exit
 * (performance.now(), so Bun.spawn's own cost is in both figures), and the
 * peak resident set size (ru_maxrss) from separate runs under GNU time
 * (`/usr/bin/time -f %M`). Bun's own `resourceUsage().maxRSS` is not used when
 * GNU time is there: Linux carries the parent's high-water mark across
 * fork+exec, so a child of Bun never reports less than Bun's ~30 MiB.
 */

export interface MeasureOptions {
  /** Timed runs (the median is reported). */
  readonly runs: number
  /** Untimed runs first, to warm the page cache. Default 2. */
  readonly warmup?: number
  readonly cwd?: string
  readonly env?: Record<string, string | undefined>
}

export interface Measurement {
  readonly argv: ReadonlyArray<string>
  /** Wall time of each timed run, in milliseconds. */
  readonly samples: ReadonlyArray<number>
  readonly medianMs: number
  readonly minMs: number
  /** CPU time (user + system, from the child's rusage) of each timed run, in milliseconds. */
  readonly cpuSamples: ReadonlyArray<number>
  /** The median CPU time: on a loaded machine a steadier figure than the wall time. */
  readonly medianCpuMs: number
  /** The largest peak RSS over all timed runs, in bytes. */
  readonly peakRssBytes: number
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** One run with output discarded: wall milliseconds, peak RSS bytes and exit code. */
export const runOnce = async (
  argv: ReadonlyArray<string>,
  options: Omit<MeasureOptions, "runs" | "warmup"> = {},
): Promise<{ ms: number; cpuMs: number; rss: number; exitCode: number }> => {
  const started = performance.now()
  const child = Bun.spawn([...argv], {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  })
  const exitCode = await child.exited
  const ms = performance.now() - started
  const usage = child.resourceUsage()
  const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : 0
  return { ms, cpuMs, rss: usage?.maxRSS ?? 0, exitCode }
}

const GNU_TIME = "/usr/bin/time"
const hasGnuTime = Bun.spawnSync([GNU_TIME, "-f", "%M", "true"], { stdout: "ignore", stderr: "pipe" }).exitCode === 0

/** Whether peak RSS comes from GNU time (exact) or from Bun's rusage (an upper bound of at least Bun's own RSS). */
export const rssSource = hasGnuTime ? "GNU time" : "Bun rusage (upper bound)"

/** The peak RSS of one run, in bytes, measured under GNU time when it is installed. */
export const peakRss = async (argv: ReadonlyArray<string>, options: Omit<MeasureOptions, "runs" | "warmup"> = {}): Promise<number> => {
  if (!hasGnuTime) return (await runOnce(argv, options)).rss
  const child = Bun.spawn([GNU_TIME, "-f", "ANVIL_BENCH_RSS_KIB %M", ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  })
  const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited])
  const kib = /ANVIL_BENCH_RSS_KIB (\d+)\s*$/.exec(stderr)
  if (!kib) throw new Error(`${argv.join(" ")}: GNU time reported no peak RSS`)
  return Number(kib[1]) * 1024
}

/**
 * Runs `argv` warmup + runs times for the wall time, then 3 more times for
 * the peak RSS; fails when any run exits non-zero (a broken benchmark is not
 * a fast one).
 */
export const measure = async (argv: ReadonlyArray<string>, options: MeasureOptions): Promise<Measurement> => {
  for (let i = 0; i < (options.warmup ?? 2); i++) await runOnce(argv, options)
  const samples: Array<number> = []
  const cpuSamples: Array<number> = []
  for (let i = 0; i < options.runs; i++) {
    const run = await runOnce(argv, options)
    if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${run.exitCode}`)
    samples.push(run.ms)
    cpuSamples.push(run.cpuMs)
  }
  let peakRssBytes = 0
  for (let i = 0; i < 3; i++) peakRssBytes = Math.max(peakRssBytes, await peakRss(argv, options))
  return { argv, samples, medianMs: median(samples), minMs: Math.min(...samples), cpuSamples, medianCpuMs: median(cpuSamples), peakRssBytes }
}

/**
 * `measure` of a reference program and the program compared with it, their
 * runs interleaved (reference, subject, subject, reference, …): on a shared
 * machine whose load drifts during a benchmark, both medians then see the
 * same load and the ratio stays steady.
 */
export const measurePair = async (
  reference: ReadonlyArray<string>,
  subject: ReadonlyArray<string>,
  options: MeasureOptions,
): Promise<{ reference: Measurement; subject: Measurement }> => {
  for (let i = 0; i < (options.warmup ?? 2); i++) {
    await runOnce(reference, options)
    await runOnce(subject, options)
  }
  const runs = { reference: { wall: [] as Array<number>, cpu: [] as Array<number> }, subject: { wall: [] as Array<number>, cpu: [] as Array<number> } }
  for (let i = 0; i < options.runs; i++) {
    for (const which of i % 2 === 0 ? (["reference", "subject"] as const) : (["subject", "reference"] as const)) {
      const argv = which === "reference" ? reference : subject
      const run = await runOnce(argv, options)
      if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${run.exitCode}`)
      runs[which].wall.push(run.ms)
      runs[which].cpu.push(run.cpuMs)
    }
  }
  const result = async (argv: ReadonlyArray<string>, r: { wall: Array<number>; cpu: Array<number> }): Promise<Measurement> => {
    let peakRssBytes = 0
    for (let i = 0; i < 3; i++) peakRssBytes = Math.max(peakRssBytes, await peakRss(argv, options))
    return { argv, samples: r.wall, medianMs: median(r.wall), minMs: Math.min(...r.wall), cpuSamples: r.cpu, medianCpuMs: median(r.cpu), peakRssBytes }
  }
  return { reference: await result(reference, runs.reference), subject: await result(subject, runs.subject) }
}

/** One run with stdout captured (to check that a benchmark does what it claims). */
export const capture = async (
  argv: ReadonlyArray<string>,
  options: Omit<MeasureOptions, "runs" | "warmup"> = {},
): Promise<{ stdout: string; stderr: string; exitCode: number }> => {
  const child = Bun.spawn([...argv], { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { stdout, stderr, exitCode }
}
