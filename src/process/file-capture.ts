import { ftruncateSync, fstatSync, readSync } from "node:fs"
import type { CapturedStream } from "./output-capture.ts"
import type { OutputFile } from "./process-runner.ts"
import { newlineCounter } from "./newline-counter.ts"
import { punchHole } from "./punch-hole.ts"

/** The file a command writes one of its streams to. */
export interface CaptureFile {
  /** Where it is, as the capture reports it. */
  readonly path: string
  /** Open for reading and writing: the command gets it as the stream, anvil reads it back. */
  readonly fd: number
  /** Deletes the file (harmless when gone). */
  readonly remove: () => void
  readonly close: () => Promise<void>
}

export interface FileCaptureOptions {
  /** Bytes kept of each end of the stream, as for `OutputCapture`. */
  readonly capacity: number
  /** The saved file is cut to this many bytes. */
  readonly maxSpillBytes: number
  readonly file: CaptureFile
}

/** The least that is freed at once past the cap. */
const FREE_AT_LEAST = 8 << 20
/** How often a running command's output is counted. */
const FOLLOW_MS = 50

/**
 * One output stream of a command written straight to a spill file: the
 * command's stdout (or stderr) is the file itself, so gigabytes of output cost
 * what the command's own write to a file costs, and nothing passes through
 * anvil while it runs. Afterwards the file is read back once to count lines
 * (the only full pass; it comes from the page cache), and head and tail are
 * read from its ends.
 *
 * It answers like {@link OutputCapture} to the same bytes: the same
 * {@link CapturedStream}, the file kept when the stream is larger than both
 * ends together or when {@link ensureSpilled} asks, removed otherwise, and cut
 * to `maxSpillBytes` with the same note.
 */
export class FileCapture {
  /** What the process runner hands the command. */
  readonly target: OutputFile
  private scanned = 0
  private lines = 0
  private kept = false
  private total = 0
  /** Both ends, read before a cap could cut the file. */
  private head: Uint8Array = new Uint8Array(0)
  private tail: Uint8Array = new Uint8Array(0)
  private problem: string | undefined
  private closed = false
  private timer: ReturnType<typeof setInterval> | undefined
  /** Bytes from the cap up to here no longer take disk space. */
  private freed = 0
  private cannotFree = false

  constructor(private readonly options: FileCaptureOptions) {
    this.target = { fd: options.file.fd }
  }

  /**
   * Counts, every `everyMs` while the command runs, what it wrote since: the
   * count then keeps pace with the output (on another core than the command's,
   * often while the command waits for the disk) instead of starting after it.
   */
  follow(everyMs = FOLLOW_MS): void {
    this.timer ??= setInterval(() => this.count(), everyMs)
  }

  /** Counts what the command wrote; after the run, the final figures. */
  async finish(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    this.count()
    this.total = this.scanned
    const span = Math.min(this.options.capacity, this.total)
    this.head = this.read(0, span)
    this.tail = this.read(this.total - span, span)
    // Larger than both ends together: kept, as the pipe capture would have started its file by now.
    if (this.total > 2 * this.options.capacity) this.keep()
  }

  /** Counts the lines of what was written since the last count. Read errors end the count where they happen. */
  private count(): void {
    const fd = this.options.file.fd
    try {
      const size = fstatSync(fd).size
      // The command truncated its own output (`: >/dev/stdout`): count again from the start.
      if (size < this.scanned) this.scanned = this.lines = 0
      if (size === this.scanned) return
      const counted = countNewlines(fd, this.scanned, size)
      this.lines += counted.lines
      this.scanned = counted.end
    } catch {
      // counted up to where reading failed
    }
    this.freeBeyondCap()
  }

  /**
   * Past `maxSpillBytes`, what was counted is of no more use but for the last
   * `capacity` bytes (the tail, read at the end): its disk blocks are freed as
   * the count goes (the file is cut to the cap at the end), so output beyond
   * the cap never piles up on disk.
   */
  private freeBeyondCap(): void {
    const { capacity, maxSpillBytes } = this.options
    const from = Math.max(this.freed, maxSpillBytes, capacity)
    const to = this.scanned - capacity
    if (to - from < FREE_AT_LEAST || this.cannotFree) return
    if (punchHole(this.options.file.fd, from, to - from)) this.freed = to
    else this.cannotFree = true
  }

  /** Keeps the file as the stream's saved copy (see `OutputCapture.ensureSpilled`). Call after {@link finish}. */
  async ensureSpilled(): Promise<void> {
    if (this.total > 0) this.keep()
  }

  private keep() {
    if (this.kept) return
    this.kept = true
    const cap = this.options.maxSpillBytes
    if (this.total > cap) {
      try {
        ftruncateSync(this.options.file.fd, Math.max(0, cap))
        this.problem = `the saved output was capped at ${cap} bytes`
      } catch (e) {
        this.problem = `the saved output could not be capped at ${cap} bytes: ${e instanceof Error ? e.message : String(e)}`
      }
    }
  }

  /** Closes the file, removing it unless it was kept. Idempotent. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    if (this.closed) return
    this.closed = true
    if (!this.kept) this.options.file.remove()
    await this.options.file.close()
  }

  snapshot(): CapturedStream {
    const { head, tail, total } = this
    return {
      totalBytes: total,
      newlines: this.lines,
      head,
      tail,
      complete: total <= head.length + tail.length,
      ...(this.kept ? { spillPath: this.options.file.path } : {}),
      spilledBytes: this.kept ? Math.min(total, this.options.maxSpillBytes) : 0,
      ...(this.problem !== undefined ? { spillProblem: this.problem } : {}),
    }
  }

  private read(at: number, length: number): Uint8Array {
    return readRange(this.options.file.fd, at, length)
  }
}

/** The size of an open file (0 when it cannot be read). */
export const sizeOf = (fd: number): number => {
  try {
    return fstatSync(fd).size
  } catch {
    return 0
  }
}

/** Up to `length` bytes of an open file from `at` (fewer at its end, or where reading failed). */
export const readRange = (fd: number, at: number, length: number): Uint8Array => {
  const out = new Uint8Array(Math.max(0, length))
  let got = 0
  try {
    while (got < out.length) {
      const n = readSync(fd, out, got, out.length - got, at + got)
      if (n <= 0) break
      got += n
    }
  } catch {
    // what was read
  }
  return got === out.length ? out : out.subarray(0, got)
}

/** The newlines in bytes `from`–`to` of an open file, and where the count ended (`to`, or earlier at its end or where reading failed). */
export const countNewlines = (fd: number, from: number, to: number): { readonly lines: number; readonly end: number } => {
  const { buffer, count } = newlineCounter()
  let lines = 0
  let at = from
  try {
    while (at < to) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at)
      if (n <= 0) break
      lines += count(n)
      at += n
    }
  } catch {
    // counted up to where reading failed
  }
  return { lines, end: at }
}
