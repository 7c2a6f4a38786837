import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { registeredTools } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, measure } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

const SIZE = 10 * 1024 * 1024

const line = (n: number) => `export const value_${n} = compute(${n}, "some string literal ${n % 997}") // trailing comment\n`

/**
 * bench/.work/edit: an anvil project holding big.orig, about 10 MiB of
 * source-like lines. Generated once; big.js is reset from it before every
 * timed run, for anvil and the reference alike.
 */
const prepare = (ctx: BenchContext): { dir: string; lines: number } => {
  const dir = join(ctx.work, "edit")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  const orig = join(dir, "big.orig")
  const count = (n: number) => {
    let bytes = 0
    let k = 0
    while (bytes < n) bytes += line(k++).length
    return k
  }
  const lines = count(SIZE)
  if (existsSync(orig) && statSync(orig).size >= SIZE) return { dir, lines }
  ctx.log(`edit: generating ${orig} (${mib(SIZE)}), once`)
  const parts: Array<string> = []
  for (let n = 0; n < lines; n++) parts.push(line(n))
  writeFileSync(`${orig}.tmp`, parts.join(""))
  renameSync(`${orig}.tmp`, orig)
  return { dir, lines }
}

/**
 * The edit tool on a 10 MiB file: one exact, unique replacement in the middle
 * (load, check uniqueness, splice, hash before and after, diff the changed
 * window, write atomically), against `sed -i` making the same change; and an
 * edit whose old_string matches nowhere, which runs the whole fallback chain
 * and the closest-region search, against a `grep -F` scan for the same text.
 * Every run of the first pair copies the original into place first, in both
 * commands, so both figures include the same `cp`.
 */
export const edit: BenchGroup = {
  name: "edit",
  description: "anvil tool edit on a 10 MiB file (an exact edit; a miss with closest-region search), against sed -i / grep -F",
  run: async (ctx) => {
    const names = ["anvil tool edit 10 MiB (exact)", "anvil tool edit 10 MiB (no match)"]
    if (!(await registeredTools(ctx)).has("edit")) {
      const why = "the edit tool is not registered in this build; rebuild with `bun bench/run.ts --build`"
      return names.map((n) => skippedRow(n, why))
    }
    const { dir, lines } = prepare(ctx)
    const sh = Bun.which("sh") ?? "/bin/sh"
    const sedBin = Bun.which("sed") ?? "/bin/sed"
    const grepBin = Bun.which("grep") ?? "/bin/grep"
    const reset = "cp big.orig big.js"
    const target = Math.floor(lines / 2)
    const oldText = `value_${target} = compute(${target},`
    const newText = `value_${target} = compute(-1,`
    writeFileSync(join(dir, "exact.json"), JSON.stringify({ path: "big.js", old_string: `export const ${oldText}`, new_string: `export const ${newText}` }))
    // A near miss: an id one digit longer than any in the file.
    const missing = `export const value_${target} = compute(${target}1, "some string literal"`
    writeFileSync(join(dir, "miss.json"), JSON.stringify({ path: "big.js", old_string: missing, new_string: "x" }))
    // Basic regular expressions: "(" and ")" are literal, and the texts hold no other special characters.
    const sedExpr = `s/${oldText}/${newText}/`
    const options = { runs: ctx.runs, env: ctx.env, cwd: dir }

    // The figures count only if anvil's file is byte for byte what sed -i makes.
    await capture([sh, "-c", `${reset} && ${sedBin} -i '${sedExpr}' big.js`], { cwd: dir })
    const bySed = readFileSync(join(dir, "big.js"))
    const check = await capture([sh, "-c", `${reset} && "${ctx.binary}" tool edit "$(cat exact.json)"`], { cwd: dir, env: ctx.env })
    const byAnvil = readFileSync(join(dir, "big.js"))
    const same = bySed.equals(byAnvil) && !bySed.equals(readFileSync(join(dir, "big.orig")))
    let status = "?"
    try {
      status = (JSON.parse(check.stdout) as { status: string }).status
    } catch {
      status = `no envelope: ${check.stderr.slice(0, 200)}`
    }
    await capture([sh, "-c", reset], { cwd: dir })
    const miss = await capture([ctx.binary, "tool", "edit", readFileSync(join(dir, "miss.json"), "utf8")], { cwd: dir, env: ctx.env })
    let missOk = false
    try {
      const envelope = JSON.parse(miss.stdout) as { error?: { code: string }; text: string }
      missOk = envelope.error?.code === "INVALID_PARAM" && envelope.text.includes(`Closest region (line ${target + 1},`)
    } catch {
      missOk = false
    }

    ctx.log(`edit: ${ctx.runs} runs each of cp, sed -i, anvil tool edit, grep -F, anvil tool edit (no match) on ${mib(SIZE)}`)
    const copyOnly = await measure([sh, "-c", reset], options)
    const sed = await measure([sh, "-c", `${reset} && ${sedBin} -i '${sedExpr}' big.js`], options)
    const anvil = await measure([sh, "-c", `${reset} && "${ctx.binary}" tool edit "$(cat exact.json)" >/dev/null`], options)
    const grep = await measure([sh, "-c", `${grepBin} -c -F '${missing}' big.js; exit 0`], options)
    const anvilMiss = await measure([sh, "-c", `"${ctx.binary}" tool edit "$(cat miss.json)" >/dev/null; exit 0`], options)
    const ratio = anvil.medianMs / sed.medianMs
    const missRatio = anvilMiss.medianMs / grep.medianMs
    return [
      {
        name: names[0]!,
        value: ms(anvil.medianMs),
        reference: `sed -i ${ms(sed.medianMs)}`,
        ratio,
        peakRssBytes: anvil.peakRssBytes,
        targets: [
          { label: "same bytes as sed -i", pass: same && status === "success" },
          { label: "ratio <= 4x", pass: ratio <= 4 },
          { label: "peak RSS < 256 MiB", pass: anvil.peakRssBytes < 256 * 1024 * 1024 },
        ],
        note:
          `both include a ${ms(copyOnly.medianMs)} cp of the original; net of it anvil takes ${ms(anvil.medianMs - copyOnly.medianMs)} ` +
          `and sed ${ms(sed.medianMs - copyOnly.medianMs)}; anvil also hashes the file before and after and diffs the changed window; ` +
          `the rest of the gap is mostly process and runtime start (see startup)` +
          (same && status === "success" ? "" : `; anvil's result differs from sed's (status ${status})`),
      },
      {
        name: names[1]!,
        value: ms(anvilMiss.medianMs),
        reference: `grep -F ${ms(grep.medianMs)}`,
        ratio: missRatio,
        peakRssBytes: anvilMiss.peakRssBytes,
        targets: [
          { label: "error shows the closest region", pass: missOk },
          { label: "median < 2 s", pass: anvilMiss.medianMs < 2000 },
          { label: "peak RSS < 384 MiB", pass: anvilMiss.peakRssBytes < 384 * 1024 * 1024 },
        ],
        note: "the miss runs exact search, three fallbacks over every line and a bigram similarity scan for the closest regions",
      },
    ] satisfies Array<Row>
  },
}
