import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { makeSandbox } from "../src/sandbox/sandbox.ts"
import { readSandboxSettings } from "../src/sandbox/settings.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median, runOnce } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"

/** The goal for what the sandbox adds to one command, at the median. */
const GOAL_MS = 15

/** bench/.work/sandbox: a git project with 1,000 small test files. */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "sandbox")
  mkdirSync(join(dir, "tests"), { recursive: true })
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  for (let i = 0; i < 1000; i++) writeFileSync(join(dir, "tests", `t${i}.test.sh`), `# test ${i}\n[ ${i} -ge 0 ] || exit 1\n`)
  return dir
}

/** bench/.work/sandbox-tree: a git project of 50,000 files in 1,000 folders (20 × 50), made once. */
const prepareTree = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "sandbox-tree")
  if (existsSync(join(dir, "done"))) return dir
  ctx.log("sandbox: generating a 50,000-file tree, once")
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  for (let a = 0; a < 20; a++)
    for (let b = 0; b < 50; b++) {
      const sub = join(dir, `pkg${a}`, `mod${b}`)
      mkdirSync(sub, { recursive: true })
      for (let c = 0; c < 50; c++) writeFileSync(join(sub, `f${c}.ts`), `export const v${c} = ${c}\n`)
    }
  writeFileSync(join(dir, "done"), "")
  return dir
}

/** bench/.work/sandbox-masks: a project of 20,000 files in 400 folders (20 × 20 × 50) with three untracked keys, made once. */
const prepareMasksTree = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "sandbox-masks")
  if (existsSync(join(dir, "done"))) return dir
  ctx.log("sandbox: generating a 20,000-file tree, once")
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true })
  for (let a = 0; a < 20; a++)
    for (let b = 0; b < 20; b++) {
      const sub = join(dir, `pkg${a}`, `mod${b}`)
      mkdirSync(sub, { recursive: true })
      for (let c = 0; c < 50; c++) writeFileSync(join(sub, `f${c}.ts`), `export const v${c} = ${c}\n`)
      if (b === 0 && a % 7 === 0) writeFileSync(join(sub, "key.pem"), "k\n")
    }
  writeFileSync(join(dir, "done"), "")
  return dir
}

/** A test-runner-like command: reads every test file, runs each check, writes a report and a temporary file. */
const SUITE =
  'n=0; for f in tests/*.test.sh; do . "$f" || exit 1; n=$((n+1)); done; echo "$n passed" > report.txt; echo x > "${TMPDIR:-/tmp}/suite.$$"; rm -f "${TMPDIR:-/tmp}/suite.$$"; cat report.txt'

/** Medians of `a` and `b`, their runs interleaved so that load drift hits both alike. */
const paired = async (a: ReadonlyArray<string>, b: ReadonlyArray<string>, runs: number, ctx: BenchContext, cwd: string) => {
  const sa: Array<number> = []
  const sb: Array<number> = []
  const ca: Array<number> = []
  const cb: Array<number> = []
  for (let i = 0; i < runs + 2; i++) {
    const ra = await runOnce(a, { cwd, env: ctx.env })
    const rb = await runOnce(b, { cwd, env: ctx.env })
    if (ra.exitCode !== 0 || rb.exitCode !== 0) throw new Error(`exit ${ra.exitCode}/${rb.exitCode}: ${a.join(" ")} | ${b.join(" ")}`)
    if (i >= 2) {
      sa.push(ra.ms)
      sb.push(rb.ms)
      ca.push(ra.cpuMs)
      cb.push(rb.cpuMs)
    }
  }
  return [median(sa), median(sb), median(ca), median(cb)] as const
}

/**
 * What the command sandbox costs: the bubblewrap wrap alone (the argv anvil
 * builds, around `true` and around a 1,000-file test-like command, against
 * the same command unwrapped) and through the binary (anvil tool bash
 * sandboxed against --sandbox off).
 */
export const sandbox: BenchGroup = {
  name: "sandbox",
  description: "the command sandbox's added time per command: bwrap as anvil builds it vs the bare command, and anvil tool bash sandboxed vs --sandbox off",
  run: async (ctx) => {
    if (!Bun.which("bwrap")) return [skippedRow("command sandbox", "bubblewrap is not installed (apt-get install bubblewrap)")]
    const dir = prepare(ctx)
    const box = makeSandbox({ root: dir, env: { ...ctx.env, HOME: ctx.env.HOME }, settings: readSandboxSettings({}), sessionId: "bench" })
    try {
      const wrapped = await Effect.runPromise(box.service.wrap({ cwd: dir }))
      if (!wrapped.wrap) return [skippedRow("command sandbox", box.service.status.warning ?? "the sandbox does not confine here")]
      const env = Object.fromEntries(Object.entries(ctx.env).filter((e): e is [string, string] => e[1] !== undefined))
      const inBox = (argv: ReadonlyArray<string>) => wrapped.wrap!({ argv, cwd: dir, env }).argv
      const runs = Math.max(5, ctx.runs)
      ctx.log(`sandbox: ${runs} paired runs each (bwrap around true, around a 1,000-file suite, anvil tool bash)`)
      const rows: Array<Row> = []
      const [boxTrue, bareTrue] = await paired(inBox(["/bin/true"]), ["/bin/true"], runs, ctx, dir)
      rows.push({
        name: "bwrap wrap of one command (true)",
        value: ms(boxTrue),
        reference: `true ${ms(bareTrue)}`,
        ratio: boxTrue / bareTrue,
        note: `adds ${ms(boxTrue - bareTrue)}`,
        targets: [{ label: `adds ≤ ${GOAL_MS} ms`, pass: boxTrue - bareTrue <= GOAL_MS }],
      })
      const [boxSuite, bareSuite] = await paired(inBox(["/bin/sh", "-c", SUITE]), ["/bin/sh", "-c", SUITE], Math.max(3, Math.min(runs, 10)), ctx, dir)
      rows.push({
        name: "1,000-file test-like command in the sandbox",
        value: ms(boxSuite),
        reference: `sh -c ${ms(bareSuite)}`,
        ratio: boxSuite / bareSuite,
        note: `adds ${ms(boxSuite - bareSuite)}`,
        targets: [{ label: `adds ≤ ${GOAL_MS} ms`, pass: boxSuite - bareSuite <= GOAL_MS }],
      })
      const tool = (mode: string) => [ctx.binary, "tool", "bash", JSON.stringify({ command: "true" }), "--sandbox", mode]
      const [viaAnvil, offAnvil, viaCpu, offCpu] = await paired(tool("workspace-write"), tool("off"), runs, ctx, dir)
      rows.push({
        name: "anvil tool bash 'true', sandboxed",
        value: ms(viaAnvil),
        reference: `--sandbox off ${ms(offAnvil)}`,
        ratio: viaAnvil / offAnvil,
        note: `adds ${ms(viaAnvil - offAnvil)} (wrap, stand-ins, hidden and redacted home secrets, the process limit and the nested-git check; the probe is remembered from an earlier call); CPU of anvil and what it reaps ${ms(viaCpu)} against ${ms(offCpu)} with --sandbox off, where anvil adopts orphans (bun:ffi's load) and reaps the command itself (inside the sandbox the command is reaped by bubblewrap's init, not counted)`,
      })
      // sandbox.network "on" (the user's own setting): anvil starts itself inside to take the Landlock scope.
      const netHome = join(ctx.work, "sandbox-home-net-on")
      mkdirSync(join(netHome, ".config", "anvil"), { recursive: true })
      writeFileSync(join(netHome, ".config", "anvil", "anvil.json"), JSON.stringify({ sandbox: { network: "on" } }))
      const [netOn, netOff, netOnCpu, netOffCpu] = await paired(
        ["/usr/bin/env", `HOME=${netHome}`, ...tool("workspace-write")],
        ["/usr/bin/env", `HOME=${ctx.env.HOME ?? netHome}`, ...tool("workspace-write")],
        runs,
        ctx,
        dir,
      )
      rows.push({
        name: "anvil tool bash 'true', sandboxed, network on",
        value: ms(netOn),
        reference: `network off ${ms(netOff)}`,
        ratio: netOn / netOff,
        note: `adds ${ms(netOn - netOff)}: anvil's own start inside the sandbox (not in anvil's CPU, ${ms(netOnCpu)} against ${ms(netOffCpu)}: bubblewrap's init reaps it), which restricts the command with Landlock (abstract Unix sockets bound outside refused) where the kernel can`,
      })
      // After each confined command anvil looks through the whole tree for git repositories the command
      // planted (src/sandbox/nested-git.ts): what that costs a one-shot call in a big project.
      const tree = prepareTree(ctx)
      const [bigTree, shTrue, bigCpu] = await paired(tool("workspace-write"), ["/bin/sh", "-c", "true"], runs, ctx, tree)
      rows.push({
        name: "anvil tool bash 'true', sandboxed, 50,000-file project",
        value: ms(bigTree),
        reference: `sh -c true ${ms(shTrue)}`,
        ratio: bigTree / shTrue,
        note: `${ms(bigTree - viaAnvil)} more than the same call in the 1,000-file project; anvil's CPU ${ms(bigCpu)} (the nested-git walk of 1,000 folders before and after the command, from the shape the previous call stored)`,
      })
      // Pattern read rules: before each confined command anvil walks the project for the places they match
      // (src/permission/mask-walk.ts), each folder stat'ed against what the previous call kept (mask-walk-store.ts).
      const masksTree = prepareMasksTree(ctx)
      const rulesHome = join(ctx.work, "sandbox-home-read-rules")
      mkdirSync(join(rulesHome, ".config", "anvil"), { recursive: true })
      writeFileSync(join(rulesHome, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read: { "*.pem": "deny", ".env": "deny" } } }))
      const [withRules, withoutRules, rulesCpu, noRulesCpu] = await paired(
        ["/usr/bin/env", `HOME=${rulesHome}`, ...tool("workspace-write")],
        ["/usr/bin/env", `HOME=${ctx.env.HOME ?? rulesHome}`, ...tool("workspace-write")],
        runs,
        ctx,
        masksTree,
      )
      rows.push({
        name: "anvil tool bash 'true', sandboxed, 20,000-file project, \"*.pem\" and \".env\" read rules",
        value: ms(withRules),
        reference: `without the rules ${ms(withoutRules)}`,
        ratio: withRules / withoutRules,
        note: `adds ${ms(withRules - withoutRules)}, CPU ${ms(rulesCpu)} against ${ms(noRulesCpu)}: the walk for the places the patterns match (400 folders stat'ed against what the previous call kept, the three keys hidden), and the git index read for what is tracked`,
      })
      return rows
    } finally {
      await box.close()
    }
  },
}
