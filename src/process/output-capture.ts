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
  /**
   * Appends bytes at once, throwing on failure. When the file offers it, each
   * chunk goes from the pipe to the file as it arrives: no copy into a batch
   * buffer, no promise per write, so a command printing gigabytes costs about
   * what its own write to a file would.
   */
  readonly writeSync?: (bytes: Uint8Array) => void
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

/** Bytes collected before one write to the spill file (two such buffers take turns). */
const BATCH = 1 << 20

/**
 * Captures one output stream in bounded memory: the first and the last
 * `capacity` bytes, byte and newline counts, and — once the stream is larger
 * than both ends together — the full stream, streamed to a spill file. A short
 * stream never touches the disk unless {@link ensureSpilled} asks for it.
 *
 * Spilling uses two fixed 1 MiB buffers that take turns: one fills while the
 * other is being written. When both are busy the returned promise pauses the
 * producer (backpressure), so memory stays at a few times `capacity` plus
 * 2 MiB however much the stream carries, and nothing is allocated per chunk.
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
  /** False once the spill file failed or reached its cap: chunks are then only counted. */
  private collecting = true
  private file: SpillFile | undefined
  private spilled = 0
  private problem: string | undefined
  private buffers: [Uint8Array, Uint8Array] | undefined
  private current = 0
  private fill = 0
  private readonly inFlight: [Promise<void> | undefined, Promise<void> | undefined] = [undefined, undefined]
  /** Set while intake is paused; chunks that still arrive wait in the backlog. */
  private waiting: Promise<void> | undefined
  private backlog: Array<Uint8Array> = []
  /** File operations (open, writes, close), in order. */
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
    if (this.waiting !== undefined) {
      this.backlog.push(chunk.slice())
      return this.waiting
    }
    if (this.early !== undefined) {
      this.early.push(chunk.slice())
      if (this.total <= 2 * this.options.capacity) return
      // The stream no longer fits in memory: from here on it goes to disk.
      const first = concat(this.early)
      this.early = undefined
      return this.hold(
        this.enqueue(async () => {
          await this.openFile()
          await this.writeBytes(first)
        }),
      )
    }
    return this.append(chunk)
  }

  /** Writes what is still buffered and closes the spill file. */
  async finish(): Promise<void> {
    while (this.waiting !== undefined) await this.waiting
    if (this.buffers !== undefined && this.fill > 0 && this.collecting) void this.dispatch()
    await this.enqueue(async () => {
      if (this.file) await this.file.close().catch(() => undefined)
    })
  }

  /**
   * Makes sure the full stream is on disk, also when it fit in memory (it is
   * shown cut, so the model needs the file). Call after {@link finish}.
   */
  async ensureSpilled(): Promise<void> {
    if (this.early === undefined || this.total === 0) return
    const all = concat(this.early)
    this.early = undefined
    await this.enqueue(async () => {
      await this.openFile()
      await this.writeBytes(all)
      if (this.file) await this.file.close().catch(() => undefined)
    })
  }

  /** Copies a chunk into the filling buffer, handing full buffers to the disk (or writes it at once, see SpillFile.writeSync). */
  private append(chunk: Uint8Array): void | Promise<void> {
    if (this.file?.writeSync !== undefined) return this.writeNow(this.file.writeSync, chunk)
    const buffers = (this.buffers ??= [new Uint8Array(BATCH), new Uint8Array(BATCH)])
    let offset = 0
    while (offset < chunk.length) {
      const n = Math.min(BATCH - this.fill, chunk.length - offset)
      buffers[this.current]!.set(chunk.subarray(offset, offset + n), this.fill)
      this.fill += n
      offset += n
      if (this.fill < BATCH) return
      const busy = this.dispatch()
      if (busy !== undefined) {
        // The other buffer is still being written: pause until it is free.
        if (offset < chunk.length) this.backlog.unshift(chunk.slice(offset))
        return this.hold(busy)
      }
    }
  }

  /** Queues the filling buffer for writing and switches to the other; returns that one's pending write, if any. */
  private dispatch(): Promise<void> | undefined {
    const index = this.current
    const bytes = this.buffers![index]!.subarray(0, this.fill)
    const written = this.enqueue(() => this.writeBytes(bytes))
    this.inFlight[index] = written
    void written.then(() => {
      if (this.inFlight[index] === written) this.inFlight[index] = undefined
    })
    this.current = 1 - index
    this.fill = 0
    return this.inFlight[this.current]
  }

  /** Pauses intake until `done` settles, then takes in the backlog; the returned promise covers both. */
  private hold(done: Promise<void>): Promise<void> {
    const waiting: Promise<void> = done.then(() => {
      if (this.waiting === waiting) this.waiting = undefined
      return this.drainBacklog()
    })
    this.waiting = waiting
    return waiting
  }

  private drainBacklog(): void | Promise<void> {
    while (this.backlog.length > 0 && this.waiting === undefined) {
      const chunk = this.backlog.shift()!
      if (!this.collecting) {
        this.backlog = []
        return
      }
      const paused = this.append(chunk)
      if (paused !== undefined) return paused
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step)
    return this.queue
  }

  private fail(problem: string) {
    this.problem ??= problem
    this.collecting = false
    this.backlog = []
  }

  private async openFile(): Promise<void> {
    const opened = await this.options.spill.open().catch((e: unknown) => ({ error: String(e) }))
    if ("error" in opened) this.fail(`the full output could not be saved: ${opened.error}`)
    else this.file = opened
  }

  private async writeBytes(bytes: Uint8Array): Promise<void> {
    const file = this.file
    if (!file || this.problem !== undefined || bytes.length === 0) return
    if (file.writeSync !== undefined) return this.writeNow(file.writeSync, bytes)
    const part = this.withinCap(bytes)
    try {
      if (part.length > 0) await file.write(part)
      this.spilled += part.length
      if (part.length < bytes.length) this.capped()
    } catch (e) {
      this.failedWrite(e)
    }
  }

  /** The synchronous path: the same cap and failure rules as writeBytes. */
  private writeNow(write: (bytes: Uint8Array) => void, bytes: Uint8Array): void {
    if (this.problem !== undefined || bytes.length === 0) return
    const part = this.withinCap(bytes)
    try {
      if (part.length > 0) write(part)
      this.spilled += part.length
      if (part.length < bytes.length) this.capped()
    } catch (e) {
      this.failedWrite(e)
    }
  }

  /** What of `bytes` still fits under max_spill_bytes. */
  private withinCap(bytes: Uint8Array): Uint8Array {
    const room = this.options.maxSpillBytes - this.spilled
    return bytes.length > room ? bytes.subarray(0, Math.max(0, room)) : bytes
  }

  private capped() {
    this.fail(`the saved output was capped at ${this.options.maxSpillBytes} bytes`)
  }

  private failedWrite(e: unknown) {
    this.fail(`the full output could not be saved: ${e instanceof Error ? e.message : String(e)}`)
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

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
