import type { Row } from "./report.ts"

/** What every benchmark group is handed by run.ts. */
export interface BenchContext {
  /** The repository root. */
  readonly repo: string
  /** The compiled executable under test (dist/anvil). */
  readonly binary: string
  /** bench/.work: generated inputs live here (gitignored, reused between runs). */
  readonly work: string
  /** Timed runs per figure for fast commands (`--runs N`). */
  readonly runs: number
  /** The environment the programs run with (anvil's rg cache kept inside bench/.work). */
  readonly env: Record<string, string | undefined>
  /** Progress to stderr, so stdout keeps only the table. */
  readonly log: (message: string) => void
}

/** A group of benchmarks in one file of bench/: run.ts runs it by name or with all the others. */
export interface BenchGroup {
  readonly name: string
  readonly description: string
  readonly run: (ctx: BenchContext) => Promise<ReadonlyArray<Row>>
}
