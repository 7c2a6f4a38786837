import ignore from "ignore"
import { tmpdir } from "node:os"
import { GlobMatcher, matchesPath } from "../src/search/glob-pattern.ts"
import { startManaged } from "../src/process/managed-process.ts"
import { IgnorePatterns } from "../src/workspace/gitignore.ts"
import type { BenchGroup } from "./lib/context.ts"
import { median } from "./lib/measure.ts"
import { ms, type Row } from "./lib/report.ts"

/**
 * What the process and input safety costs, in process, against what it
 * replaced, measured in the same run:
 * - globs and ignore files run as a linear-time NFA instead of a RegExp
 *   (ordinary patterns over many names, and one adversarial pattern);
 * - a managed process (own group, mark, /proc sweep when stopped) against a
 *   bare Bun.spawn of the same program.
 */

const time = (f: () => void, runs: number): number => {
  const samples: Array<number> = []
  for (let i = 0; i <= runs; i++) {
    const start = performance.now()
    f()
    if (i > 0) samples.push(performance.now() - start)
  }
  return median(samples)
}

const NAMES = Array.from({ length: 100_000 }, (_, i) => `src/module${i % 97}/file_${i}.${["ts", "js", "md", "json"][i % 4]}`)

const globRegExp = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*\//g, "(?:.*/)?").replace(/\*/g, "[^/]*")}$`)

const GITIGNORE = ["node_modules/", "dist/", "*.log", "coverage/", ".env*", "build/", "*.tmp", "/out", "docs/**/*.pdf", "!keep.log"].join("\n")

export const safety: BenchGroup = {
  name: "safety",
  description: "linear-time wildcards vs RegExp / the ignore package; a managed process vs a bare Bun.spawn",
  run: async (ctx) => {
    const runs = Math.max(3, Math.min(ctx.runs, 10))
    const rows: Array<Row> = []

    ctx.log("safety: glob over 100,000 names")
    const glob = GlobMatcher.compile("**/*.ts", { dot: false })
    const globRe = globRegExp("**/*.ts")
    const ours = time(() => NAMES.forEach((n) => matchesPath(glob, n)), runs)
    const theirs = time(() => NAMES.forEach((n) => globRe.test(n)), runs)
    rows.push({ name: "glob **/*.ts, 100,000 paths (GlobMatcher)", value: ms(ours), reference: `one RegExp ${ms(theirs)}`, ratio: ours / theirs, note: "GlobMatcher walks segments (so a walk can prune folders); a segment with one wildcard is a RegExp" })

    const stars = "*a*a*a*a*a*a*a*a*a*b"
    const name = "a".repeat(26)
    const starsOurs = time(() => matchesPath(GlobMatcher.compile(stars, { dot: true }), name), runs)
    const starsRe = globRegExp(stars)
    const starsTheirs = time(() => starsRe.test(name), 1)
    rows.push({
      name: `glob ${stars} on a 26-character name`,
      value: ms(starsOurs),
      reference: `RegExp ${ms(starsTheirs)}`,
      ratio: starsOurs / starsTheirs,
      note: "the RegExp's time grows exponentially with the name; the NFA's linearly",
    })

    ctx.log("safety: ignore rules over 100,000 paths")
    const rules = IgnorePatterns.parse(GITIGNORE)
    const reference = ignore({ ignorecase: false }).add(GITIGNORE) as unknown as { _rules: { test: (p: string, m: string) => unknown } }
    const ignoreOurs = time(() => NAMES.forEach((n) => rules.test(n)), runs)
    const ignoreTheirs = time(() => NAMES.forEach((n) => reference._rules.test(n, "regex")), runs)
    rows.push({ name: "ignore rules, 10 patterns × 100,000 paths", value: ms(ignoreOurs), reference: `ignore pkg ${ms(ignoreTheirs)}`, ratio: ignoreOurs / ignoreTheirs })

    ctx.log("safety: managed process vs Bun.spawn")
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" }
    const spawnRuns = Math.max(10, ctx.runs)
    const bare: Array<number> = []
    const managed: Array<number> = []
    for (let i = 0; i <= spawnRuns; i++) {
      let start = performance.now()
      const child = Bun.spawn(["true"], { env, cwd: tmpdir(), stdout: "ignore", stderr: "ignore" })
      await child.exited
      if (i > 0) bare.push(performance.now() - start)
      start = performance.now()
      const p = startManaged({ argv: ["true"], cwd: tmpdir(), env, stdout: "ignore", stderr: "ignore" })
      await p.exited
      await p.stop()
      if (i > 0) managed.push(performance.now() - start)
    }
    const m = median(managed)
    const b = median(bare)
    rows.push({
      name: "start + stop `true` as a managed process",
      value: ms(m),
      reference: `Bun.spawn ${ms(b)}`,
      ratio: m / b,
      note: "includes the /proc sweep for marked processes when it is stopped",
    })
    return rows
  },
}
