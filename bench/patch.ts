import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, measure } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

const SIZE = 10 * 1024 * 1024
const HUNKS = 40

const line = (n: number) => `${String(n).padStart(10, "0")} the quick brown fox jumps over the lazy dog; lorem ipsum ${n % 997}\n`

/**
 * bench/.work/patch: an anvil project holding big.orig (10 MiB of text), the
 * expected result big.expected, and big.diff, a unified diff (git-style a/ b/
 * names) with HUNKS hunks spread over the whole file — edits, an insertion and
 * a deletion near the end. Generated once; big.txt is reset from big.orig
 * before every timed run, for anvil and the reference alike.
 */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "patch")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  const orig = join(dir, "big.orig")
  if (existsSync(join(dir, "big.expected")) && existsSync(orig) && statSync(orig).size >= SIZE) return dir
  ctx.log(`patch: generating ${orig} (${mib(SIZE)}) and its diff, once`)
  const lines: Array<string> = []
  let bytes = 0
  for (let n = 1; bytes < SIZE; n++) {
    const l = line(n)
    lines.push(l)
    bytes += l.length
  }
  const next = [...lines]
  for (let k = 1; k <= HUNKS; k++) {
    const i = Math.floor((lines.length * k) / (HUNKS + 1))
    next[i] = next[i]!.replace("quick", "QUICK")
  }
  next.splice(lines.length - 20, 1, "an inserted line\n", next[lines.length - 20]!)
  next.splice(lines.length - 5, 1)
  writeFileSync(`${orig}.tmp`, lines.join(""))
  renameSync(`${orig}.tmp`, orig)
  writeFileSync(join(dir, "big.expected"), next.join(""))
  return dir
}

/** The diff of big.orig → big.expected, with both sides named big.txt (a/ b/ prefixes), from diff(1) or git. */
const makeDiff = async (dir: string): Promise<string> => {
  const diffBin = Bun.which("diff")
  const out = diffBin
    ? (await capture([diffBin, "-u", "big.orig", "big.expected"], { cwd: dir })).stdout
    : (await capture(["git", "diff", "--no-index", "big.orig", "big.expected"], { cwd: dir })).stdout
  return out.replace(/^(---|\+\+\+) (?:a\/|b\/)?big\.(?:orig|expected)[^\n]*$/gm, (_, side: string) => `${side} ${side === "---" ? "a" : "b"}/big.txt`)
}

/**
 * The patch tool applying a 40-hunk diff to a 10 MiB file (parse, locate every
 * hunk by its context, write atomically), against `git apply` and, when
 * installed, `patch -p1` on the same diff. Every run first copies the original
 * file into place (in both commands), so the figures include the same `cp`.
 */
export const patch: BenchGroup = {
  name: "patch",
  description: "anvil tool patch of a 40-hunk diff on a 10 MiB file, against git apply (and patch -p1)",
  run: async (ctx) => {
    if (!(await registeredTools(ctx)).has("patch")) {
      return [skippedRow("anvil tool patch 10 MiB", "the patch tool is not registered in this build; rebuild with `bun bench/run.ts --build`")]
    }
    const gitBin = Bun.which("git")
    if (!gitBin) return [skippedRow("anvil tool patch 10 MiB", "git is not installed (the reference is `git apply`)")]
    const dir = prepare(ctx)
    const diff = await makeDiff(dir)
    writeFileSync(join(dir, "big.diff"), diff)
    writeFileSync(join(dir, "big.json"), JSON.stringify({ patch: diff }))
    const sh = Bun.which("sh") ?? "/bin/sh"
    const reset = "cp big.orig big.txt"
    const options = { runs: ctx.runs, env: ctx.env, cwd: dir }
    const anvilCmd = `${reset} && "${ctx.binary}" tool patch "$(cat big.json)" >/dev/null`

    // The figures count only if the result is the expected file, as git apply makes it.
    await capture([sh, "-c", `${reset} && ${gitBin} apply big.diff`], { cwd: dir })
    const gitSame = readFileSync(join(dir, "big.txt")).equals(readFileSync(join(dir, "big.expected")))
    const check = await capture([sh, "-c", `${reset} && "${ctx.binary}" tool patch "$(cat big.json)"`], { cwd: dir, env: ctx.env })
    const anvilSame = readFileSync(join(dir, "big.txt")).equals(readFileSync(join(dir, "big.expected")))
    let status = "?"
    try {
      status = (JSON.parse(check.stdout) as { status: string }).status
    } catch {
      status = `no envelope: ${check.stderr.slice(0, 200)}`
    }

    ctx.log(`patch: ${ctx.runs} runs each of git apply, patch -p1, anvil tool patch on ${mib(SIZE)}`)
    const git = await measure([sh, "-c", `${reset} && ${gitBin} apply big.diff`], options)
    const patchBin = Bun.which("patch")
    const gnu = patchBin ? await measure([sh, "-c", `${reset} && ${patchBin} -s -p1 < big.diff`], options) : undefined
    const copyOnly = await measure([sh, "-c", reset], options)
    const anvil = await measure([sh, "-c", anvilCmd], options)
    const ratio = anvil.medianMs / git.medianMs
    return [
      {
        name: `anvil tool patch (${HUNKS} hunks, ${mib(SIZE)})`,
        value: ms(anvil.medianMs),
        reference: `git apply ${ms(git.medianMs)}`,
        ratio,
        peakRssBytes: anvil.peakRssBytes,
        targets: [
          { label: "same bytes as git apply", pass: gitSame && anvilSame && status === "success" },
          { label: "ratio <= 3x", pass: ratio <= 3 },
          { label: "peak RSS < 256 MiB", pass: anvil.peakRssBytes < 256 * 1024 * 1024 },
        ],
        note:
          `each run includes a ${ms(copyOnly.medianMs)} cp of the original; ` +
          (gnu ? `patch -p1 takes ${ms(gnu.medianMs)} (${(anvil.medianMs / gnu.medianMs).toFixed(2)}x); ` : "") +
          `the rest of the gap is mostly process and runtime start (see startup)` +
          (anvilSame && status === "success" ? "" : `; anvil's result differs from the expected file (status ${status})`),
      },
    ] satisfies Array<Row>
  },
}
