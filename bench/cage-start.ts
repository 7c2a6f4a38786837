// What a command's own pids cgroup adds to its start, and what a cage made ahead of time (src/process/parked-cage.ts)
// leaves of it: `bun bench/cage-start.ts [runs]` (as root, or with a delegated cgroup; about 15 s for 20 runs).
// Each run starts /bin/true through startManaged after a pause like a model's step, its output going to files as
// bash's does: without a limit (the reference), with the cage entered at the command's start (the old way), and
// with the cage made ahead of time. Prints the medians and the ratios against the reference.
import { openSync, closeSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startManaged } from "../src/process/managed-process.ts"
import { prepareCage } from "../src/process/parked-cage.ts"
import { cagesAvailable } from "../src/process/tree-cgroup.ts"

const runs = Number(process.argv[2] ?? 20)
const PAUSE_MS = 300
const dir = mkdtempSync(join(tmpdir(), "anvil-cage-bench-"))
const out = openSync(join(dir, "out"), "w")
const err = openSync(join(dir, "err"), "w")

const once = async (max: number | undefined): Promise<number> => {
  await Bun.sleep(PAUSE_MS)
  const t = performance.now()
  const p = startManaged({
    argv: ["/bin/true"], cwd: dir, env: { PATH: "/usr/bin:/bin" }, stdout: out, stderr: err, leavesNothing: true,
    ...(max !== undefined ? { wrap: (c) => ({ ...c, maxProcesses: max }) } : {}),
  })
  await p.exited
  const took = performance.now() - t
  await p.stop()
  return took
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

if (!cagesAvailable()) {
  console.log("no writable pids cgroup here (run as root, or with a delegated cgroup): nothing to measure")
} else {
  const plain: Array<number> = []
  const entered: Array<number> = []
  const ahead: Array<number> = []
  // The old way first: nothing prepares a cage until prepareCage is called.
  for (let i = 0; i < runs; i++) plain.push(await once(undefined)), entered.push(await once(4096))
  prepareCage(4096)
  for (let i = 0; i < runs; i++) ahead.push(await once(4096))
  const ref = median(plain)
  const row = (name: string, xs: Array<number>) => console.log(`${name.padEnd(34)} ${median(xs).toFixed(1).padStart(6)} ms  ${(median(xs) / ref).toFixed(2)}x`)
  console.log(`${runs} runs of /bin/true, ${PAUSE_MS} ms apart; load ${(await Bun.file("/proc/loadavg").text()).split(" ")[0]}`)
  row("no process limit (reference)", plain)
  row("cage entered at the command's start", entered)
  row("cage made ahead of time", ahead)
}
closeSync(out)
closeSync(err)
rmSync(dir, { recursive: true, force: true })
process.exit(0)
