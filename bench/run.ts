/**
 * Benchmarks of the built executable, each figure a ratio against a reference
 * program measured in the same run, plus peak memory and the targets.
 *
 *   bun bench/run.ts [GROUP ...] [--runs N] [--build] [--strict] [--list] [--readme]
 *
 * GROUP names one file of bench/ (default: all). --runs sets the timed runs
 * per figure (default 20), --build rebuilds dist/anvil first (it is built when
 * missing anyway), --strict exits 1 when a target is missed. Inputs are
 * generated under bench/.work and reused. The table goes to stdout, progress
 * to stderr. Each group's rows are saved to bench/results/<group>.json;
 * --readme then rewrites the README's performance table from all saved groups
 * (`bun bench/readme.ts` does only that).
 *
 * To add a benchmark: write bench/<group>.ts exporting a BenchGroup
 * (bench/lib/context.ts) that returns Rows (bench/lib/report.ts), time
 * programs with measure() (bench/lib/measure.ts), and list it in `groups`.
 * Every row reaches the README table, with its targets as the goal.
 */
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { rssSource } from "./lib/measure.ts"
import { formatTable, verdict, type Row } from "./lib/report.ts"
import { commitOf, groupResult, saveResult } from "./lib/results.ts"
import { updateReadme } from "./readme.ts"
import { agent } from "./agent.ts"
import { bash } from "./bash.ts"
import { context } from "./context.ts"
import { edit } from "./edit.ts"
import { gitStatus } from "./git.ts"
import { glob } from "./glob.ts"
import { lsp } from "./lsp.ts"
import { mcp } from "./mcp.ts"
import { patch } from "./patch.ts"
import { plugins } from "./plugins.ts"
import { read } from "./read.ts"
import { safety } from "./safety.ts"
import { sandbox } from "./sandbox.ts"
import { sdkHost } from "./sdk-host.ts"
import { search } from "./search.ts"
import { size } from "./size.ts"
import { spill } from "./spill.ts"
import { startup } from "./startup.ts"

const groups: ReadonlyArray<BenchGroup> = [startup, read, size, patch, gitStatus, edit, bash, glob, search, agent, context, lsp, plugins, mcp, safety, sandbox, sdkHost, spill]

const usage = `Usage: bun bench/run.ts [GROUP ...] [--runs N] [--build] [--strict] [--list] [--readme]\nGroups: ${groups.map((g) => g.name).join(", ")}\n`

const parse = (argv: ReadonlyArray<string>) => {
  const names: Array<string> = []
  let runs = 20
  let build = false
  let strict = false
  let list = false
  let readme = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--runs") runs = Number(argv[++i])
    else if (a.startsWith("--runs=")) runs = Number(a.slice(7))
    else if (a === "--build") build = true
    else if (a === "--strict") strict = true
    else if (a === "--list") list = true
    else if (a === "--readme") readme = true
    else if (a === "--help" || a === "-h") {
      process.stdout.write(usage)
      process.exit(0)
    } else if (a.startsWith("-")) {
      process.stderr.write(`bench: unknown option '${a}'\n${usage}`)
      process.exit(2)
    } else names.push(a)
  }
  if (!Number.isInteger(runs) || runs < 1) {
    process.stderr.write(`bench: --runs needs a positive whole number\n`)
    process.exit(2)
  }
  const unknown = names.filter((n) => !groups.some((g) => g.name === n))
  if (unknown.length) {
    process.stderr.write(`bench: unknown group ${unknown.join(", ")}\n${usage}`)
    process.exit(2)
  }
  return { selected: names.length ? groups.filter((g) => names.includes(g.name)) : groups, runs, build, strict, list, readme }
}

const options = parse(process.argv.slice(2))
if (options.list) {
  for (const g of groups) process.stdout.write(`${g.name.padEnd(10)} ${g.description}\n`)
  process.exit(0)
}

const repo = join(import.meta.dir, "..")
const binary = join(repo, "dist", "anvil")
const work = join(repo, "bench", ".work")
mkdirSync(work, { recursive: true })
const log = (message: string) => void process.stderr.write(`${message}\n`)

if (options.build || !existsSync(binary)) {
  log(options.build ? "bench: rebuilding dist/anvil" : "bench: dist/anvil is missing; building it")
  const built = Bun.spawnSync([process.execPath, join(repo, "build.ts")], { cwd: repo, stdout: "inherit", stderr: "inherit" })
  if (built.exitCode !== 0) {
    log("bench: the build failed")
    process.exit(1)
  }
}

const ctx: BenchContext = {
  repo,
  binary,
  work,
  runs: options.runs,
  // anvil's rg cache stays inside bench/.work; no colour in captured output.
  env: { ...process.env, XDG_CACHE_HOME: join(work, "cache"), NO_COLOR: "1" },
  log,
}

const rows: Array<Row> = []
const commit = commitOf(repo)
for (const group of options.selected) {
  let groupRows: ReadonlyArray<Row>
  try {
    groupRows = await group.run(ctx)
  } catch (e) {
    groupRows = [{ name: group.name, value: "-", targets: [{ label: `ran without error (${(e as Error).message})`, pass: false }] }]
  }
  rows.push(...groupRows)
  saveResult(join(repo, "bench", "results"), groupResult(group, groups.indexOf(group), groupRows, options.runs, commit))
}
if (options.readme) updateReadme(repo, log)

process.stdout.write(
  `\nanvil benchmarks: wall time = median of ${options.runs} runs; ratio = anvil / reference; peak RSS from ${rssSource}\n\n`,
)
process.stdout.write(formatTable(rows))
const count = (v: string) => rows.filter((r) => verdict(r) === v).length
process.stdout.write(`\n${count("PASS")} PASS, ${count("FAIL")} FAIL, ${count("SKIP")} SKIP\n`)
process.exit(options.strict && count("FAIL") > 0 ? 1 : 0)
