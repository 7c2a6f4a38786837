import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import type { Row } from "./report.ts"

/**
 * The latest rows of one benchmark group, kept in bench/results/<group>.json
 * (small, committed): the README's performance table is generated from these
 * files, so a group's figures change only when that group is run again.
 */
export interface GroupResult {
  readonly group: string
  readonly description: string
  /** The group's place in bench/run.ts, which orders the README table. */
  readonly position: number
  /** ISO time the group finished. */
  readonly measuredAt: string
  /** The commit measured (short hash, "+changes" when the tree had uncommitted changes). */
  readonly commit: string
  /** `--runs` of that run. */
  readonly runs: number
  /** Cores and the 1-minute load average when the group ran: figures on a busy machine are worth less. */
  readonly machine: { readonly cores: number; readonly load: number }
  readonly rows: ReadonlyArray<Row>
}

/** The commit of `repo` as a short hash, marked when the working tree differs from it. */
export const commitOf = (repo: string): string => {
  const head = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: repo, stdout: "pipe", stderr: "ignore" })
  if (head.exitCode !== 0) return "unknown"
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: repo, stdout: "pipe", stderr: "ignore" })
  return `${head.stdout.toString().trim()}${dirty.stdout.toString().trim() ? "+changes" : ""}`
}

export const groupResult = (
  group: { name: string; description: string },
  position: number,
  rows: ReadonlyArray<Row>,
  runs: number,
  commit: string,
): GroupResult => ({
  group: group.name,
  description: group.description,
  position,
  measuredAt: new Date().toISOString(),
  commit,
  runs,
  machine: { cores: availableParallelism(), load: Number(loadavg()[0]!.toFixed(2)) },
  rows,
})

export const saveResult = (dir: string, result: GroupResult): void => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${result.group}.json`), `${JSON.stringify(result, null, 2)}\n`)
}

/** Every saved group, in the order of bench/run.ts. */
export const loadResults = (dir: string): Array<GroupResult> => {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as GroupResult)
    .sort((a, b) => a.position - b.position || a.group.localeCompare(b.group))
}
