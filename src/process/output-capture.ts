import type { OutputSink } from "./process-runner.ts"

/** Where the full stream goes once it outgrows memory: a file opened on demand. */
export interface SpillTarget {
  /** Opens the file; resolves to `{ error }` when it cannot be created. */
  readonly open: () => Promise<SpillFile | { readonly error: string }>
}

export interface SpillFile {
  readonly path: string
  /** Appends bytes; rejects on failure (disk full, …). */
  readonly write: (bytes: Uint8Array) => Promise<void>
  readonly close: () => Promise<void>
}

/** What a capture kept of one stream. */
export interface CapturedStream {
  /** Every byte the stream carried. */
  readonly totalBytes: number
  /** Newline characters in the whole stream. */
  readonly newlines: number
  /** The first bytes, up to the capacity. */
  readonly head: Uint8Array
  /** The last bytes, up to the capacity (overlaps `head` when the stream was short). */
  readonly tail: Uint8Array
  /** The whole stream is in memory: `head` followed by the end of `tail` is all of it. */
  readonly complete: boolean
  /** The spill file holding the full stream, when one was written. */
  readonly spillPath?: string
  /** Bytes that reached the spill file (less than totalBytes when it was capped or failed). */
  readonly spilledBytes: number
  /** Why the spill file is missing or incomplete. */
  readonly spillProblem?: string
}

export interface CaptureOptions {
  /** Bytes kept of each end of the stream. */
  readonly capacity: number
  /** The spill file is never written past this many bytes. */
  readonly maxSpillBytes: number
  readonly spill: SpillTarget
}

/** Bytes collected before one write to the spill file. */
const BATCH = 1 << 20

/**
 * Captures one output stream in bounded memory: the first and the last
 * `capacity` bytes, byte and newline counts, and — once the stream is larger
 * than both ends together — the full stream streamed to a spill file in
 * batches. A short stream never touches the disk unless {@link ensureSpilled}
 * asks for it. Memory stays at a few times `capacity` plus one batch, however
 * much the stream carries; a slow disk pauses the producer (the write promise).
 */
export class OutputCapture implements OutputSink {
  private readonly head: Uint8Array
  private headLength = 0
  private readonly ring: Uint8Array
  private ringEnd = 0
  private ringFilled = 0
  private total = 0
  private lines = 0
  /** Everything so far, while the stream still fits in memory (no spill file yet). */
  private early: Array<Uint8Array> | undefined = []
  /** Chunks waiting for the next write to the spill file. */
  private batch: Array<Uint8Array> = []
  private batchBytes = 0
  /** False once the spill file failed or reached its cap: chunks are then only counted. */
  private collecting = true
  private file: SpillFile | undefined
  private spilled = 0
  private problem: string | undefined
  private inflight = 0
  /** The chain of spill operations, in order. */
  private queue: Promise<void> = Promise.resolve()

  constructor(private readonly options: CaptureOptions) {
    this.head = new Uint8Array(options.capacity)
    this.ring = new Uint8Array(options.capacity)
  }

  write(chunk: Uint8Array): void | Promise<void> {
    if (chunk.length === 0) return
    this.total += chunk.length
    let i = -1
    while ((i = chunk.indexOf(10, i + 1)) !== -1) this.lines++
    this.keepHead(chunk)
    this.keepTail(chunk)
    if (!this.collecting) return
    // Copy: the producer may reuse its buffer.
    const copy = chunk.slice()
    if (this.early !== undefined) {
      this.early.push(copy)
      if (this.total <= 2 * this.options.capacity) return
      // The stream no longer fits in memory: from here on it goes to disk.
      this.batch = this.early
      this.batchBytes = this.total
      this.early = undefined
      return this.startWrite(true)
    }
    this.batch.push(copy)
    this.batchBytes += copy.length
    if (this.batchBytes < BATCH) return
    return this.startWrite(false)
  }

  /** Writes what is still buffered and closes the spill file. */
  finish(): Promise<void> {
    if (this.early === undefined && this.collecting && this.batchBytes > 0) void this.startWrite(false)
    return this.enqueue(async () => {
      if (this.file) await this.file.close().catch(() => undefined)
    })
  }

  /**
   * Makes sure the full stream is on disk, also when it fit in memory (it is
   * shown cut, so the model needs the file). Call after {@link finish}.
   */
  ensureSpilled(): Promise<void> {
    if (this.early === undefined || this.total === 0) return this.queue
    this.batch = this.early
    this.batchBytes = this.total
    this.early = undefined
    void this.startWrite(true)
    return this.enqueue(async () => {
      if (this.file) await this.file.close().catch(() => undefined)
    })
  }

  /**
   * Queues the current batch for the disk (opening the file first when asked).
   * One write may run while the next batch fills; the producer is paused
   * (the returned promise) only when a second one would start.
   */
  private startWrite(open: boolean): Promise<void> | undefined {
    const parts = this.batch
    const size = this.batchBytes
    this.batch = []
    this.batchBytes = 0
    this.inflight++
    const done = this.enqueue(async () => {
      if (open) await this.openFile()
      await this.writeParts(parts, size)
    }).then(() => {
      this.inflight--
    })
    return open || this.inflight > 1 ? done : undefined
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step)
    return this.queue
  }

  private fail(problem: string) {
    this.problem = problem
    this.collecting = false
    this.batch = []
    this.batchBytes = 0
  }

  private async openFile(): Promise<void> {
    const opened = await this.options.spill.open().catch((e: unknown) => ({ error: String(e) }))
    if ("error" in opened) this.fail(`the full output could not be saved: ${opened.error}`)
    else this.file = opened
  }

  private async writeParts(parts: ReadonlyArray<Uint8Array>, size: number): Promise<void> {
    const file = this.file
    if (!file || this.problem !== undefined || size === 0) return
    const room = this.options.maxSpillBytes - this.spilled
    let bytes = parts.length === 1 ? parts[0]! : concat(parts, size)
    const capped = bytes.length > room
    if (capped) bytes = bytes.subarray(0, Math.max(0, room))
    try {
      if (bytes.length > 0) await file.write(bytes)
      this.spilled += bytes.length
      if (capped) this.fail(`the saved output was capped at ${this.options.maxSpillBytes} bytes`)
    } catch (e) {
      this.fail(`the full output could not be saved: ${e instanceof Error ? e.message : String(e)}`)
    }
  }

  snapshot(): CapturedStream {
    const cap = this.options.capacity
    const tail = new Uint8Array(this.ringFilled)
    if (this.ringFilled < cap) tail.set(this.ring.subarray(0, this.ringFilled))
    else {
      tail.set(this.ring.subarray(this.ringEnd), 0)
      tail.set(this.ring.subarray(0, this.ringEnd), cap - this.ringEnd)
    }
    return {
      totalBytes: this.total,
      newlines: this.lines,
      head: this.head.slice(0, this.headLength),
      tail,
      complete: this.total <= this.headLength + this.ringFilled,
      ...(this.file ? { spillPath: this.file.path } : {}),
      spilledBytes: this.spilled,
      ...(this.problem !== undefined ? { spillProblem: this.problem } : {}),
    }
  }

  private keepHead(chunk: Uint8Array) {
    const room = this.head.length - this.headLength
    if (room <= 0) return
    const take = Math.min(room, chunk.length)
    this.head.set(chunk.subarray(0, take), this.headLength)
    this.headLength += take
  }

  private keepTail(chunk: Uint8Array) {
    const cap = this.ring.length
    if (cap === 0) return
    // The ring is independent of the head (they overlap for short streams);
    // `complete` and the excerpt resolve the overlap.
    let data = chunk
    if (data.length >= cap) data = data.subarray(data.length - cap)
    const first = Math.min(data.length, cap - this.ringEnd)
    this.ring.set(data.subarray(0, first), this.ringEnd)
    if (first < data.length) this.ring.set(data.subarray(first), 0)
    this.ringEnd = (this.ringEnd + data.length) % cap
    this.ringFilled = Math.min(cap, this.ringFilled + data.length)
  }
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
