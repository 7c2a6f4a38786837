/**
 * Rewrites the README's performance table from the saved results of every
 * benchmark group (bench/results/<group>.json), without running anything:
 *
 *   bun bench/readme.ts
 *
 * `bun bench/run.ts [GROUP ...] --readme` runs the groups first.
 */
import { join } from "node:path"
import { renderTable, writeTable } from "./lib/readme.ts"
import { loadResults } from "./lib/results.ts"

/** Writes the table into `<repo>/README.md` and says how many groups it holds. */
export const updateReadme = (repo: string, log: (message: string) => void): void => {
  const results = loadResults(join(repo, "bench", "results"))
  writeTable(join(repo, "README.md"), renderTable(results))
  log(`bench: README.md performance table written from ${results.length} group(s) in bench/results/`)
}

if (import.meta.main) updateReadme(join(import.meta.dir, ".."), (m) => void process.stderr.write(`${m}\n`))
