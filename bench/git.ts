import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, measurePair } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"

const FILES = 20_000

const git = (cwd: string, env: Record<string, string | undefined>, args: ReadonlyArray<string>) => {
  const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" })
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`)
  return r.stdout.toString()
}

/**
 * bench/.work/git: a repository of 20,000 committed files in 400 folders
 * (made once, reused), then — every run, from the committed state — 40 files
 * edited, 10 deleted, one renamed and staged, and 25 untracked files in a new
 * folder and beside tracked ones, so the status has every kind of line.
 */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "git")
  const env = { ...ctx.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@example.test", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@example.test" }
  // `git commit` may pack the refs (auto gc), so ask git whether the commit is there.
  const made = existsSync(join(dir, ".git")) && Bun.spawnSync(["git", "rev-parse", "--verify", "-q", "main"], { cwd: dir, env, stdout: "ignore", stderr: "ignore" }).exitCode === 0
  if (!made) {
    ctx.log(`git: generating a ${FILES}-file repository in ${dir}, once`)
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < FILES; i++) {
      const folder = join(dir, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 10}`)
      if (i < 400) mkdirSync(folder, { recursive: true })
      writeFileSync(join(folder, `file${i}.ts`), `export const value${i} = ${i}\n// line two of file ${i}\n`)
    }
    git(dir, env, ["init", "-q", "-b", "main"])
    git(dir, env, ["add", "-A"])
    git(dir, env, ["commit", "-q", "-m", "20,000 files"])
  }
  git(dir, env, ["reset", "-q", "--hard"])
  git(dir, env, ["clean", "-q", "-fd"])
  const file = (i: number) => join(`pkg${i % 40}`, `mod${Math.floor(i / 40) % 10}`, `file${i}.ts`)
  for (let i = 0; i < 40; i++) writeFileSync(join(dir, file(i * 487 + 3)), `export const changed${i} = true\n`)
  for (let i = 0; i < 10; i++) rmSync(join(dir, file(i * 1931 + 11)))
  git(dir, env, ["mv", file(5), "renamed.ts"])
  mkdirSync(join(dir, "fresh", "deeper"), { recursive: true })
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, "fresh", "deeper", `new${i}.ts`), `new ${i}\n`)
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, "pkg7", `untracked${i}.ts`), `u ${i}\n`)
  return dir
}

interface GitFigure {
  readonly tool: string
  readonly params: Record<string, unknown>
  readonly gitArgs: ReadonlyArray<string>
  /** The goal as a multiple of git's own time. */
  readonly goal: number
  /** What the envelope's data.content is compared with (git's output, trailing newlines dropped). */
  readonly compare: "content" | "none"
}

const FIGURES: ReadonlyArray<GitFigure> = [
  { tool: "git_status", params: { short: true }, gitArgs: ["status", "--porcelain"], goal: 1.5, compare: "content" },
  { tool: "git_status", params: {}, gitArgs: ["status"], goal: 1.5, compare: "content" },
  { tool: "git_diff", params: {}, gitArgs: ["diff"], goal: 1.5, compare: "content" },
  { tool: "git_diff", params: { staged: true }, gitArgs: ["diff", "--staged"], goal: 1.5, compare: "content" },
  { tool: "git_log", params: { limit: 20 }, gitArgs: ["log", "-n", "20"], goal: 2, compare: "content" },
]

/** Memory goal for a git tool call on the large repository. */
const MEMORY_GOAL = 100 * 1024 * 1024

/**
 * The git tools against git itself on a 20,000-file repository: each tool runs the git command line
 * and parses its -z output. The plain calls measured here start git before anvil's runtime loads
 * (src/git/early-git.ts), so each figure is git's time with anvil's start-up beside it, plus the parsing.
 */
export const gitStatus: BenchGroup = {
  name: "git",
  description: `anvil tool git_status / git_diff / git_log on a ${FILES.toLocaleString("en")}-file repository, against git itself`,
  run: async (ctx) => {
    const tools = await registeredTools(ctx)
    const gitBin = Bun.which("git")
    if (!gitBin) return [skippedRow("git tools", "git is not installed (it is the reference program)")]
    const dir = prepare(ctx)
    const options = { runs: ctx.runs, warmup: 1, env: ctx.env, cwd: dir }
    const rows: Array<Row> = []
    for (const figure of FIGURES) {
      const label = `anvil tool ${figure.tool} ${JSON.stringify(figure.params)} (${FILES} files)`
      if (!tools.has(figure.tool)) {
        rows.push(skippedRow(label, `${figure.tool} is not registered in this build; rebuild with \`bun bench/run.ts --build\``))
        continue
      }
      const { reference, subject: anvil } = await measurePair([gitBin, ...figure.gitArgs], [ctx.binary, "tool", figure.tool, JSON.stringify(figure.params)], options)
      // The figure counts only if the answer is git's.
      const expected = (await capture([gitBin, ...figure.gitArgs], { cwd: dir, env: ctx.env })).stdout.replace(/\n+$/, "")
      const envelope = await toolEnvelope(ctx, dir, figure.tool, figure.params)
      const content = typeof envelope.data.content === "string" ? envelope.data.content.replace(/\n+$/, "") : ""
      const same = envelope.status !== "error" && content === expected
      const ratio = anvil.medianMs / reference.medianMs
      rows.push({
        name: label,
        value: ms(anvil.medianMs),
        reference: `git ${figure.gitArgs.join(" ")} ${ms(reference.medianMs)}`,
        ratio,
        peakRssBytes: anvil.peakRssBytes,
        targets: [
          { label: `<= ${figure.goal}x git`, pass: ratio <= figure.goal },
          { label: "<= 100 MiB", pass: anvil.peakRssBytes <= MEMORY_GOAL },
          { label: "same text as git", pass: same },
        ],
        ...(same ? {} : { note: `the answer differed from git's: ${envelope.error?.message ?? content.slice(0, 200)}` }),
      })
    }
    return rows
  },
}
