import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { BenchGroup } from "./lib/context.ts"
import { formatTable, ms, type Row } from "./lib/report.ts"
import { closeQuietly, openCheckedFile, readAllFd, stampOf } from "../src/workspace/checked-fs.ts"
import { commitSync, type FileChange } from "../src/workspace/file-transaction.ts"

/**
 * What the file safety of issue 9 costs, in process (no start-up in the
 * figures): a write and an edit of one file, small (1 KiB) and large
 * (100 MiB), done the checked way — the descriptor's real place checked, a
 * journal, a per-file flock with the stamp compared under it, temp + rename
 * through the checked folder — against the plain way the code did before
 * (read by path, write a temp beside the file, rename it over). Same bytes,
 * same disk, same run. Run it alone: `bun bench/file-safety.ts [--runs N]`
 * (no binary needed).
 */

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const time = (runs: number, setup: () => void, body: () => void): number => {
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    setup()
    const t0 = performance.now()
    body()
    times.push(performance.now() - t0)
  }
  return median(times)
}

const plainWrite = (file: string, bytes: Uint8Array) => {
  const temp = `${file}.plain-${Math.random().toString(36).slice(2)}.tmp`
  writeFileSync(temp, bytes, { flag: "wx" })
  renameSync(temp, file)
}

export const fileSafety: BenchGroup = {
  name: "file-safety",
  description: "write / edit of 1 KiB and 100 MiB files: checked (fd place, journal, flock, stamp) vs plain temp + rename",
  run: async (ctx) => {
    const dir = join(ctx.work, "file-safety")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const journalDir = join(dir, ".journal")
    const contains = (p: string) => p === dir || p.startsWith(`${dir}/`)
    const rows: Array<Row> = []
    for (const [label, size, runs] of [
      ["1 KiB", 1024, Math.max(ctx.runs, 50)],
      ["100 MiB", 100 * 1024 * 1024, 5],
    ] as const) {
      const file = join(dir, `f-${size}.txt`)
      const base = Buffer.alloc(size, "a\n")
      const next = Buffer.from(base)
      next[0] = 0x62
      const reset = () => writeFileSync(file, base)

      // write: replace the whole content.
      const plainW = time(runs, reset, () => plainWrite(file, next))
      const checkedW = time(runs, reset, () => {
        const opened = openCheckedFile(contains, file)
        const before = { bytes: new Uint8Array(0), mode: 0o644, size, mtimeMs: 0, stamp: stampOf(opened.stat) }
        closeQuietly(opened.fd)
        const change: FileChange = { path: file, display: "f", before, after: { bytes: next } }
        commitSync([change], { root: dir, contains, journalDir })
      })
      rows.push({ name: `write ${label}, checked`, value: ms(checkedW), reference: `plain ${ms(plainW)}`, ratio: checkedW / plainW })

      // edit: read, hash, change one byte, write back.
      const plainE = time(runs, reset, () => {
        const bytes = readFileSync(file)
        createHash("sha256").update(bytes).digest("hex")
        // The new text is new bytes in both (an edit never writes into the buffer it read).
        const after = Buffer.from(bytes)
        after[0] = 0x62
        plainWrite(file, after)
      })
      const checkedE = time(runs, reset, () => {
        const opened = openCheckedFile(contains, file)
        const bytes = readAllFd(opened.fd, Number(opened.stat.size))
        closeQuietly(opened.fd)
        createHash("sha256").update(bytes).digest("hex")
        const after = Buffer.from(bytes)
        after[0] = 0x62
        const before = { bytes, mode: 0o644, size: bytes.length, mtimeMs: 0, stamp: stampOf(opened.stat) }
        commitSync([{ path: file, display: "f", before, after: { bytes: after } }], { root: dir, contains, journalDir })
      })
      rows.push({ name: `edit ${label}, checked`, value: ms(checkedE), reference: `plain ${ms(plainE)}`, ratio: checkedE / plainE })
    }
    rmSync(dir, { recursive: true, force: true })
    return rows
  },
}

if (import.meta.main) {
  const at = process.argv.indexOf("--runs")
  const runs = at > 0 ? Number(process.argv[at + 1]) || 20 : 20
  const repo = join(import.meta.dir, "..")
  const rows = await fileSafety.run({
    repo,
    binary: join(repo, "dist", "anvil"),
    work: join(repo, "bench", ".work"),
    runs,
    env: process.env,
    log: (m) => process.stderr.write(`${m}\n`),
  })
  process.stdout.write(`${formatTable(rows)}\n`)
}
