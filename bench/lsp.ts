import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LspEngine } from "../src/lsp/engine.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { median, runOnce } from "./lib/measure.ts"
import { ms, skippedRow, type Row } from "./lib/report.ts"

const RUNS = 2
const WARM = 5

/** A 300-line Python module and shell script with one error each, made once under bench/.work/lsp. */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "lsp")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  const py = Array.from({ length: 100 }, (_, i) => `def f${i}(x):\n    """Doc ${i}."""\n    return x + ${i}\n`).join("")
  writeFileSync(join(dir, "mod.py"), `${py}print(undefined_name)\n`)
  const sh = Array.from({ length: 150 }, (_, i) => `v${i}="value ${i}"\necho "$v${i}"\n`).join("")
  writeFileSync(join(dir, "run.sh"), `#!/bin/bash\n${sh}rm $v1\n`)
  return dir
}

const vmRss = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m ? Number(m[1]) * 1024 : 0
}

const timed = async (argv: ReadonlyArray<string>, ctx: BenchContext, cwd: string) => {
  const samples: Array<number> = []
  for (let i = 0; i < RUNS; i++) samples.push((await runOnce(argv, { cwd, env: ctx.env })).ms)
  return median(samples)
}

interface Case {
  readonly server: string
  readonly file: string
  /** The checker the server runs, run directly on the same file. */
  readonly reference: ReadonlyArray<string>
  readonly anvilJson: string
}

/**
 * For each server: first diagnostics through `anvil tool lsp_diagnostics`
 * (cold: the server starts, analyses and stops) and a warm call after a change
 * (in process, server running), each against the checker run directly on the
 * same file; and the running server's resident memory.
 */
export const lsp: BenchGroup = {
  name: "lsp",
  description: "lsp_diagnostics cold and warm per server (pylsp, pyright, bash-language-server), against the checker run directly; server memory",
  run: async (ctx) => {
    const dir = prepare(ctx)
    const npmBin = join(ctx.repo, "node_modules", ".bin")
    const path = `${npmBin}:${ctx.env.PATH ?? "/usr/bin:/bin"}`
    const env = { ...ctx.env, PATH: path }
    const cases: ReadonlyArray<Case> = [
      { server: "pylsp", file: "mod.py", reference: ["python3", "-m", "pyflakes", "mod.py"], anvilJson: "{}\n" },
      {
        server: "pyright",
        file: "mod.py",
        reference: [join(npmBin, "pyright"), "mod.py"],
        anvilJson: '{ "lsp": { "python": { "command": ["pyright-langserver", "--stdio"], "name": "pyright" } } }\n',
      },
      { server: "bash-language-server", file: "run.sh", reference: ["shellcheck", "run.sh"], anvilJson: "{}\n" },
    ]
    const rows: Array<Row> = []
    for (const c of cases) {
      const name = `lsp_diagnostics ${c.server}`
      if (!Bun.which(c.reference[0]!, { PATH: path })) {
        rows.push(skippedRow(name, `${c.reference[0]} is not installed (bash test/setup.sh, npm ci)`))
        continue
      }
      ctx.log(`lsp: ${c.server}`)
      writeFileSync(join(dir, "anvil.json"), c.anvilJson)
      const reference = await timed(c.reference, { ...ctx, env }, dir)
      const cold = await timed([ctx.binary, "tool", "lsp_diagnostics", JSON.stringify({ path: c.file })], { ...ctx, env }, dir)
      rows.push({ name: `${name} cold (start + first answer)`, value: ms(cold), reference: `${c.reference[0]!.split("/").pop()} ${ms(reference)}`, ratio: cold / reference })

      const section = JSON.parse(c.anvilJson).lsp ?? {}
      const settings = { idleMs: 60_000, maxRestarts: 0, diagnosticsWaitMs: 30_000, requestTimeoutMs: 30_000, startTimeoutMs: 60_000 }
      const engine = new LspEngine(dir, { ...env }, section, settings, true, (p) => p.slice(dir.length + 1))
      const file = join(dir, c.file)
      const text = readFileSync(file, "utf8")
      await engine.diagnostics(file, text)
      const samples: Array<number> = []
      for (let i = 0; i < WARM; i++) {
        const started = performance.now()
        const r = await engine.diagnostics(file, `${text}\n# change ${i}\n`)
        samples.push(performance.now() - started)
        if (r.kind !== "served" || r.freshness !== "current") throw new Error(`${c.server}: warm answer not current`)
      }
      const warm = median(samples)
      const pid = engine.pool.list()[0]?.pid ?? 0
      const rss = pid ? vmRss(pid) : 0
      await engine.close()
      rows.push({
        name: `${name} warm (after a change)`,
        value: ms(warm),
        reference: `${c.reference[0]!.split("/").pop()} ${ms(reference)}`,
        ratio: warm / reference,
        peakRssBytes: rss,
        note: "peak RSS: the running server's resident memory",
      })
    }
    writeFileSync(join(dir, "anvil.json"), "{}\n")
    return rows
  },
}
