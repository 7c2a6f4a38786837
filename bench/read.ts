import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync, writeSync, renameSync } from "node:fs"
import { join } from "node:path"
import { registeredTools, toolEnvelope } from "./lib/anvil.ts"
import type { BenchContext, BenchGroup } from "./lib/context.ts"
import { capture, measure } from "./lib/measure.ts"
import { mib, ms, skippedRow, type Row } from "./lib/report.ts"

const GIB = 1024 ** 3

const line = (n: number) => `${String(n).padStart(10, "0")} the quick brown fox jumps over the lazy dog; lorem ipsum ${n % 997}\n`

/** Writes `file` (about `bytes` long, whole lines) unless it is already there; via a temp file, so a cut-off run never leaves half a file. */
const generate = (file: string, bytes: number, log: (m: string) => void): void => {
  if (existsSync(file) && statSync(file).size >= bytes) return
  log(`read: generating ${file} (${mib(bytes)}), once`)
  const temp = `${file}.tmp`
  const fd = openSync(temp, "w")
  let written = 0
  let n = 1
  while (written < bytes) {
    let chunk = ""
    for (let i = 0; i < 50_000 && written + chunk.length < bytes; i++) chunk += line(n++)
    written += writeSync(fd, chunk)
  }
  closeSync(fd)
  renameSync(temp, file)
}

/** bench/.work/read: an anvil project (anvil.json marker) holding small.txt and the 1 GiB big.txt. */
const prepare = (ctx: BenchContext): string => {
  const dir = join(ctx.work, "read")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "anvil.json"), "{}\n")
  let small = ""
  for (let n = 1; n <= 200; n++) small += line(n)
  writeFileSync(join(dir, "small.txt"), small)
  generate(join(dir, "big.txt"), GIB, ctx.log)
  return dir
}

/**
 * The read tool: a small file (reference `head -n 50`, read's default page) and
 * the last 50 lines of a 1 GiB file (reference `tail -n 50`), which must not
 * cost time or memory in proportion to the file.
 */
export const read: BenchGroup = {
  name: "read",
  description: "anvil tool read on a small file and on the tail of a 1 GiB file, against head/tail",
  run: async (ctx) => {
    if (!(await registeredTools(ctx)).has("read")) {
      const why = "the read tool is not registered in this build (src/tools/builtin.ts); rebuild with `bun bench/run.ts --build` once it is"
      return [skippedRow("anvil tool read small.txt", why), skippedRow("anvil tool read big.txt offset -50", why)]
    }
    const dir = prepare(ctx)
    const options = { runs: ctx.runs, env: ctx.env, cwd: dir }
    const headBin = Bun.which("head") ?? "/usr/bin/head"
    const tailBin = Bun.which("tail") ?? "/usr/bin/tail"

    ctx.log(`read: ${ctx.runs} runs each of head, anvil read small.txt, tail, anvil read big.txt offset -50`)
    const head = await measure([headBin, "-n", "50", "small.txt"], options)
    const small = await measure([ctx.binary, "tool", "read", '{"path":"small.txt"}'], options)
    const tail = await measure([tailBin, "-n", "50", "big.txt"], options)
    const big = await measure([ctx.binary, "tool", "read", '{"path":"big.txt","offset":-50}'], options)

    // The figures count only if the tool returned the right lines.
    const expected = (await capture([tailBin, "-n", "50", "big.txt"], { cwd: dir })).stdout.trimEnd().split("\n")
    const envelope = await toolEnvelope(ctx, dir, "read", { path: "big.txt", offset: -50 })
    const content = typeof envelope.data.content === "string" ? envelope.data.content : ""
    const sameLines = envelope.status !== "error" && expected.every((l) => content.includes(l))
    const ratio = big.medianMs / tail.medianMs

    const rows: Array<Row> = [
      {
        name: "anvil tool read small.txt",
        value: ms(small.medianMs),
        reference: `head -n 50 ${ms(head.medianMs)}`,
        ratio: small.medianMs / head.medianMs,
        peakRssBytes: small.peakRssBytes,
      },
      {
        name: "anvil tool read big.txt offset -50",
        value: ms(big.medianMs),
        reference: `tail -n 50 ${ms(tail.medianMs)}`,
        ratio,
        peakRssBytes: big.peakRssBytes,
        targets: [
          { label: "ratio <= 3x", pass: ratio <= 3 },
          { label: "peak RSS < 100 MiB", pass: big.peakRssBytes < 100 * 1024 * 1024 },
          { label: "returns tail's 50 lines", pass: sameLines },
        ],
        note:
          `it takes ${(big.medianMs / small.medianMs).toFixed(2)}x anvil's own read of the 200-line small.txt; ` +
          `the gap to tail is mostly process and runtime start (see startup), which tail does not pay` +
          (sameLines ? "" : `; the envelope did not hold tail's lines: ${envelope.error?.message ?? envelope.text.slice(0, 200)}`),
      },
    ]
    return rows
  },
}
