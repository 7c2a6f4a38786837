import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, measure } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"

const FILES = 20_000
/** Timed runs per program: anvil's status of 20,000 files takes about a second, so fewer than the default. */
const MAX_RUNS = 5

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

/** git_status on 20,000 files (isomorphic-git, no git binary) against `git status --porcelain`. */
export const gitStatus: BenchGroup = {
  name: "git",
  description: `anvil tool git_status (short) on a ${FILES.toLocaleString("en")}-file repository, against git status --porcelain`,
  run: async (ctx) => {
    const name = `anvil tool git_status short (${FILES} files)`
    if (!(await registeredTools(ctx)).has("git_status")) {
      return [skippedRow(name, "git_status is not registered in this build; rebuild with `bun bench/run.ts --build`")]
    }
    const gitBin = Bun.which("git")
    if (!gitBin) return [skippedRow(name, "git is not installed (it is the reference program)")]
    const dir = prepare(ctx)
    const options = { runs: Math.min(ctx.runs, MAX_RUNS), warmup: 1, env: ctx.env, cwd: dir }
    ctx.log(`git: ${options.runs} runs each of git status --porcelain and anvil tool git_status`)
    const reference = await measure([gitBin, "status", "--porcelain"], options)
    const anvil = await measure([ctx.binary, "tool", "git_status", '{"short":true}'], options)

    // The figure counts only if the answer is git's.
    const expected = (await capture([gitBin, "status", "--porcelain"], { cwd: dir, env: ctx.env })).stdout.trimEnd()
    const envelope = await toolEnvelope(ctx, dir, "git_status", { short: true })
    const content = typeof envelope.data.content === "string" ? envelope.data.content.trimEnd() : ""
    const same = envelope.status === "success" && content === expected
    const ratio = anvil.medianMs / reference.medianMs
    const row: Row = {
      name,
      value: ms(anvil.medianMs),
      reference: `git status --porcelain ${ms(reference.medianMs)}`,
      ratio,
      peakRssBytes: anvil.peakRssBytes,
      targets: [{ label: "same lines as git status --porcelain", pass: same }],
      note:
        "isomorphic-git walks the tree in JavaScript and checks every file's stat against the index; git does the same in C with a preloaded index" +
        (same ? "" : `; the answer differed from git's: ${envelope.error?.message ?? content.slice(0, 200)}`),
    }
    return [row]
  },
}
