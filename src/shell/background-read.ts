import { Deferred, Effect } from "effect"
import { countNewlines, readRange, sizeOf } from "../process/file-capture.ts"
import { excerpt, lineCount } from "../process/output-excerpt.ts"
import type { CapturedStream } from "../process/output-capture.ts"
import type { Job, JobTable } from "./background-jobs.ts"
import type { BackgroundOutput, ReadOptions } from "./background-types.ts"

/**
 * Reading a background command's output piece by piece: what is new since the last read (all of it, or its head
 * and tail around a marker), or only the new lines a filter keeps.
 */

/** A filtered read looks at most at this much of the new output (its end). */
const FILTER_WINDOW = 16 << 20
/** Characters of a line a filter is tried on. */
const FILTER_LINE_CHARS = 2000

const newlinesBetween = (fd: number, from: number, to: number): number => countNewlines(fd, from, to).lines

/** A stream of `total` bytes known by its ends. */
const streamOf = (total: number, newlines: number, head: Uint8Array, tail: Uint8Array): CapturedStream => ({
  totalBytes: total,
  newlines,
  head,
  tail,
  complete: total <= head.length + tail.length,
  spilledBytes: 0,
})

/** The new output of the command `id` (after waiting up to `options.waitMs` for its end); moves where the next read starts. */
export const readNew = (table: JobTable, id: string, options: ReadOptions) =>
  Effect.gen(function* () {
    const job = yield* table.find(id)
    if (options.waitMs > 0 && job.end === undefined) {
      yield* Effect.timeoutOption(Deferred.await(job.ended), options.waitMs)
      job.refresh()
    }
    const { fd } = job.file
    const size = sizeOf(fd)
    // The command truncated its own output file: read from its start again.
    if (size < job.cursor) job.cursor = job.linesRead = 0
    const from = job.cursor
    const fromLine = job.linesRead
    const newBytes = size - from
    if (options.filter !== undefined) return readFiltered(table, job, options, size)
    const newlines = newlinesBetween(fd, from, size)
    const span = Math.min(options.budgetBytes + 4, newBytes)
    const stream = streamOf(newBytes, newlines, readRange(fd, from, span), readRange(fd, size - span, span))
    const shown = excerpt(stream, options.budgetBytes, options.budgetLines)
    job.cursor = size
    job.linesRead += newlines
    const out: BackgroundOutput = { shell: table.answered(job), shown, newBytes, fromByte: from, fromLine, newLines: lineCount(stream) }
    return out
  })

/** The new complete lines (all of them once the command ended) that match the filter; the rest are passed over. */
const readFiltered = (table: JobTable, job: Job, options: ReadOptions, size: number): BackgroundOutput => {
  const { fd } = job.file
  const from = job.cursor
  const fromLine = job.linesRead
  const windowStart = Math.max(from, size - FILTER_WINDOW)
  const bytes = readRange(fd, windowStart, size - windowStart)
  // While the command runs, a last line without its newline may still grow: it is left for the next read.
  const lastNewline = bytes.lastIndexOf(10)
  const upTo = job.end !== undefined ? bytes.length : lastNewline + 1
  const text = new TextDecoder().decode(bytes.subarray(0, upTo))
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  const kept = lines.filter((l) => options.filter!.test(l.slice(0, FILTER_LINE_CHARS)))
  const keptBytes = new TextEncoder().encode(kept.length > 0 ? `${kept.join("\n")}\n` : "")
  const span = Math.min(options.budgetBytes + 4, keptBytes.length)
  const stream = streamOf(keptBytes.length, kept.length, keptBytes.subarray(0, span), keptBytes.subarray(keptBytes.length - span))
  const consumed = windowStart - from + upTo
  const newlines = newlinesBetween(fd, from, from + consumed)
  job.cursor = from + consumed
  job.linesRead += newlines
  return {
    shell: table.answered(job),
    shown: excerpt(stream, options.budgetBytes, options.budgetLines),
    newBytes: consumed,
    fromByte: from,
    fromLine,
    newLines: newlines,
    filtered: { kept: kept.length, of: lines.length },
  }
}

/** The last `bytes` of a command's output as text, without moving where the next read starts. */
export const tailOf = (table: JobTable, id: string, bytes: number) =>
  Effect.map(table.find(id), (job) => {
    const size = sizeOf(job.file.fd)
    const from = Math.max(0, size - bytes)
    return { text: new TextDecoder().decode(readRange(job.file.fd, from, size - from)), totalBytes: size, truncated: from > 0 }
  })
