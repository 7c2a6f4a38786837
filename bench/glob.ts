import { rgPath as packagedRg } from "@vscode/ripgrep"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, median, peakRss, runOnce } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"
import { freshRepo } from "./lib/tree.ts"

/**
 * Files in the generated tree: test262's size (57,000 files, the issue's
 * figure). ANVIL_BENCH_GLOB_FILES sets another size (e.g. 10000 for a quick
 * look); the default is the full one, generated once (~10 s) and reused.
 */
const FILES = Number(process.env.ANVIL_BENCH_GLOB_FILES ?? 57_000)
const PER_DIR = 20
/** Timed runs per program: a whole-tree walk takes a few hundred milliseconds. */
const MAX_RUNS = 10

/**
 * bench/.work/glob-<n>: a git repository (never committed) shaped like test262:
 * 57,000 small files, 20 a folder, five levels deep, about 6,000 folders; a
 * .gitignore that excludes a tenth of them (`*.log`, `generated/`), some
 * hidden files, and a few links that are listed, never followed.
 */
const prepare = (ctx: BenchContext): string => {
  const dir = freshRepo(ctx, `glob-${FILES}`, ".generated", "*.log\ngenerated/\n", `a ${FILES.toLocaleString("en")}-file tree`)
  if (dir === undefined) return join(ctx.work, `glob-${FILES}`)
  for (let i = 0; i < FILES; i++) {
    const d = Math.floor(i / PER_DIR)
    const folder = join(dir, "test", `area${d % 12}`, `obj${Math.floor(d / 12) % 25}`, `m${Math.floor(d / 300)}`, d % 17 === 16 ? "generated" : `sub${d % 3}`)
    if (i % PER_DIR === 0) mkdirSync(folder, { recursive: true })
    const ext = i % 11 === 0 ? "log" : i % 4 === 0 ? "py" : "js"
    writeFileSync(join(folder, `${i % 500 === 0 ? "." : ""}file${i}.${ext}`), `// ${i}\n`)
  }
  symlinkSync("test/area0", join(dir, "link-to-area0"))
  symlinkSync("anvil.json", join(dir, "link-to-file.py"))
  writeFileSync(join(dir, ".generated"), "")
  return dir
}

/** Alternating timed runs of two programs (the load of a shared machine hits both alike), after a warm-up of each. */
const paired = async (a: ReadonlyArray<string>, b: ReadonlyArray<string>, runs: number, cwd: string, env: BenchContext["env"]) => {
  const times: [Array<number>, Array<number>] = [[], []]
  const cpu: [Array<number>, Array<number>] = [[], []]
  for (let i = 0; i <= runs; i++) {
    for (const [k, argv] of [a, b].entries()) {
      const run = await runOnce(argv, { cwd, env })
      if (run.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${run.exitCode}`)
      if (i > 0) {
        times[k]!.push(run.ms)
        cpu[k]!.push(run.cpuMs)
      }
    }
  }
  return { a: median(times[0]), b: median(times[1]), cpuA: median(cpu[0]), cpuB: median(cpu[1]), peakRss: await peakRss(b, { cwd, env }) }
}

/**
 * anvil tool glob on a test262-sized tree against ripgrep listing the same
 * tree (`rg --files`, what a user would run; process start included on both
 * sides). A figure counts only when the answer is whole: anvil's count is
 * rg's plus the links rg does not list (glob reports links as entries).
 */
export const glob: BenchGroup = {
  name: "glob",
  description: `anvil tool glob on a ${FILES.toLocaleString("en")}-file tree, against rg --files in the same run`,
  run: async (ctx) => {
    const size = `${Math.round(FILES / 1000)}k files`
    // rg's `-g` is a whitelist that also lets hidden files through: each count is taken from the plain listing.
    const cases = [
      { pattern: "**/*", rgExtra: [] as Array<string>, wanted: (_p: string) => true, links: 2 },
      { pattern: "**/*.py", rgExtra: ["-g", "*.py"], wanted: (p: string) => p.endsWith(".py"), links: 1 },
      // The rest of the class: a brace set, a literal name at any depth, one subtree.
      { pattern: "**/*.{py,json}", rgExtra: ["-g", "*.{py,json}"], wanted: (p: string) => p.endsWith(".py") || p.endsWith(".json"), links: 1 },
      { pattern: "**/file4001.js", rgExtra: ["-g", "file4001.js"], wanted: (p: string) => p.endsWith("/file4001.js"), links: 0 },
      { pattern: "test/area1/**/*.js", rgExtra: ["-g", "test/area1/**/*.js"], wanted: (p: string) => p.startsWith("test/area1/") && p.endsWith(".js"), links: 0 },
    ]
    const names = cases.map((c) => `anvil tool glob ${c.pattern} (${size})`)
    if (!(await registeredTools(ctx)).has("glob")) {
      return names.map((n) => skippedRow(n, "glob is not registered in this build; rebuild with `bun bench/run.ts --build`"))
    }
    const rg = Bun.which("rg") ?? packagedRg
    const dir = prepare(ctx)
    const runs = Math.min(ctx.runs, MAX_RUNS)
    const rows: Array<Row> = []
    for (const [i, c] of cases.entries()) {
      const reference = [rg, "--files", "--no-config", ...c.rgExtra]
      const anvil = [ctx.binary, "tool", "glob", JSON.stringify({ pattern: c.pattern, limit: 1 })]
      ctx.log(`glob: ${runs} alternating runs of ${reference.slice(1).join(" ")} and anvil tool glob ${c.pattern}`)
      const timed = await paired(reference, anvil, runs, dir, ctx.env)
      const listed = (await capture([rg, "--files", "--no-config"], { cwd: dir, env: ctx.env })).stdout.split("\n")
      const expected = listed.filter((l) => l !== "" && c.wanted(l)).length + c.links
      const envelope = await toolEnvelope(ctx, dir, "glob", { pattern: c.pattern, limit: 1 })
      const whole = envelope.data.count === expected && envelope.data.aborted_reason === undefined
      const ratio = timed.b / timed.a
      rows.push({
        name: names[i]!,
        value: ms(timed.b),
        reference: `rg ${reference.slice(1).join(" ")} ${ms(timed.a)}`,
        ratio,
        peakRssBytes: timed.peakRss,
        targets: [
          { label: "ratio <= 1.5x", pass: ratio <= 1.5 },
          { label: `whole answer (${expected} paths, no breaker)`, pass: whole },
        ],
        note:
          // rg lists on several threads: on a busy machine it gets more than one core's share, anvil one.
          `CPU ${ms(timed.cpuB)} against rg's ${ms(timed.cpuA)} (${(timed.cpuB / timed.cpuA).toFixed(2)}x)` +
          (whole ? "" : `; glob counted ${String(envelope.data.count)} (${String(envelope.data.aborted_reason ?? "not stopped")}), expected ${expected}`),
      })
    }
    return rows
  },
}
