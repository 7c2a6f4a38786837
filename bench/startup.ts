import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compileOptions, effectWithoutAsyncContext, EXECUTABLE_BUILD } from "../build-options.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { measure, measurePair } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

/** The small repository's size: about an express checkout's tracked files. */
const SMALL_FILES = 200

const SMALL_GIT = [
  { tool: "git_status", params: {}, gitArgs: ["status"], goal: 3 },
  { tool: "git_log", params: { limit: 20 }, gitArgs: ["log", "-n", "20"], goal: 2 },
] as const

/** bench/.work/small-repo: 200 committed files over 25 commits, two of them changed and one untracked (made once). */
const smallRepository = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "small-repo")
  if (existsSync(join(dir, ".git"))) return dir
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const env = { ...ctx.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@example.test", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@example.test" }
  const git = (...args: Array<string>) => Bun.spawnSync(["git", ...args], { cwd: dir, env, stdout: "ignore", stderr: "ignore" })
  git("init", "-q", "-b", "main")
  for (let i = 0; i < SMALL_FILES; i++) {
    mkdirSync(join(dir, `lib${i % 8}`), { recursive: true })
    writeFileSync(join(dir, `lib${i % 8}`, `file${i}.js`), `module.exports = ${i}\n`)
    if (i % 8 === 7) {
      git("add", "-A")
      git("commit", "-q", "-m", `files up to ${i}`)
    }
  }
  writeFileSync(join(dir, "lib0", "file0.js"), "module.exports = 'changed'\n")
  writeFileSync(join(dir, "lib1", "file1.js"), "module.exports = 'changed'\n")
  writeFileSync(join(dir, "notes.txt"), "untracked\n")
  return dir
}

type Measured = Awaited<ReturnType<typeof measure>>

/**
 * bench/floor/NAME.ts compiled as dist/anvil is (build-options.ts) into bench/.work/floor-NAME: the
 * reference programs that say how fast a start can be on this runtime.
 */
const compileFloor = async (ctx: BenchContext, name: string): Promise<string> => {
  const outfile = join(ctx.work, `floor-${name}`)
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, "floor", `${name}.ts`)],
    ...EXECUTABLE_BUILD,
    compile: compileOptions(outfile),
    plugins: [{ name: "as-anvil", setup: (build) => void effectWithoutAsyncContext(build) }],
  })
  if (!built.success) throw new Error(`bench/floor/${name}.ts did not compile: ${built.logs.join("\n")}`)
  return outfile
}

/**
 * A program's CPU against `anvil --version`'s. A tool call is held to the goal (a call that starts about as
 * fast as the binary); a floor program (`floor`) has no target: it is what the target is judged against.
 */
const againstVersion = (name: string, call: Measured, version: Measured, note: string, floor = false): Row => ({
  name,
  value: ms(call.medianCpuMs),
  reference: `anvil --version ${ms(version.medianCpuMs)}`,
  ratio: call.medianCpuMs / version.medianCpuMs,
  peakRssBytes: call.peakRssBytes,
  ...(floor ? {} : { targets: [{ label: "CPU ≤ 2x anvil --version", pass: call.medianCpuMs <= 2 * version.medianCpuMs }] }),
  note,
})

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
  description: "anvil --version and a trivial tool call against `true` (wall median, peak RSS); anvil tool read and two floor programs compiled as anvil is (bench/floor) against anvil --version (CPU median, interleaved); git_status and git_log on a small repository against git (wall median)",
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
    // The CPU figures against --version are measured interleaved with it: on a shared machine both see the same load.
    const readArgs = ["tool", "read", '{"path":"small.txt"}']
    const { reference: versionForRead, subject: read } = await measurePair([ctx.binary, "--version"], [ctx.binary, ...readArgs], { ...options, cwd: project })
    ctx.log("startup: compiling the floor programs (bench/floor) as dist/anvil is compiled")
    const [printFloor, effectFloor] = [await compileFloor(ctx, "print"), await compileFloor(ctx, "effect-call")]
    const { reference: versionForPrint, subject: printed } = await measurePair([ctx.binary, "--version"], [printFloor], { ...options, cwd: project })
    const { reference: versionForCall, subject: effectCall } = await measurePair([ctx.binary, "--version"], [effectFloor, readArgs[2]!], { ...options, cwd: project })
    // The same project with settings in its anvil.json: checked against the Schema on the first call, then remembered.
    const configured = join(ctx.work, "startup-project-settings")
    mkdirSync(configured, { recursive: true })
    writeFileSync(join(configured, "anvil.json"), `${JSON.stringify({ output: { max_lines: 500 }, tools: { read: { max_limit: 3000 } }, permission: { bash: "ask" } }, null, 2)}\n`)
    writeFileSync(join(configured, "small.txt"), Array.from({ length: 20 }, (_, i) => `line ${i + 1} of a small file`).join("\n") + "\n")
    const { reference: versionForConfigured, subject: readConfigured } = await measurePair([ctx.binary, "--version"], [ctx.binary, ...readArgs], { ...options, cwd: configured })
    const repo = smallRepository(ctx)
    const gitBin = Bun.which("git")
    const inRepo = { ...options, cwd: repo }
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
      againstVersion("anvil tool read of a small file vs anvil --version (CPU)", read, versionForRead,
        `wall median ${ms(read.medianMs)} vs ${ms(versionForRead.medianMs)} (${(read.medianMs / versionForRead.medianMs).toFixed(2)}x); ` +
          `${(read.medianCpuMs / effectCall.medianCpuMs).toFixed(2)}x the Effect floor below`),
      againstVersion("anvil tool read, anvil.json with settings, vs anvil --version (CPU)", readConfigured, versionForConfigured,
        `with an empty anvil.json ${ms(read.medianCpuMs)} (the settings check is made on the first call, then remembered)`),
      againstVersion("floor: a compiled Bun program printing one line vs anvil --version (CPU)", printed, versionForPrint,
        "bench/floor/print.ts compiled as anvil is: --version costs what any start of this runtime costs", true),
      againstVersion("floor: a compiled Effect tool call vs anvil --version (CPU)", effectCall, versionForCall,
        "bench/floor/effect-call.ts: two services from a Context, one Schema decode, a node:fs read, JSON out, compiled as anvil is; " +
          "the least a call of Effect services and Schema costs here, against the 2x goal", true),
    ]
    if (!gitBin) return [...rows, skippedRow("small repository git tools", "git is not installed (it is the reference program)")]
    // Small repositories, where a git tool call is mostly anvil's start: the whole process, wall time.
    for (const figure of SMALL_GIT) {
      const { reference, subject: anvil } = await measurePair([gitBin, ...figure.gitArgs], [ctx.binary, "tool", figure.tool, JSON.stringify(figure.params)], inRepo)
      const ratio = anvil.medianMs / reference.medianMs
      rows.push({
        name: `anvil tool ${figure.tool} ${JSON.stringify(figure.params)}, small repository (${SMALL_FILES} files)`,
        value: ms(anvil.medianMs),
        reference: `git ${figure.gitArgs.join(" ")} ${ms(reference.medianMs)}`,
        ratio,
        peakRssBytes: anvil.peakRssBytes,
        targets: [{ label: `<= ${figure.goal}x git (process start included)`, pass: ratio <= figure.goal }],
        // git runs while anvil starts (src/git/early-git.ts): what is left is the start, which a call without git shows.
        note: `CPU ${ms(anvil.medianCpuMs)} vs ${ms(reference.medianCpuMs)}; a call that runs no git (read, above) takes ${ms(read.medianMs)}, ${(read.medianMs / reference.medianMs).toFixed(1)}x this git alone`,
      })
    }
    return rows
  },
}
