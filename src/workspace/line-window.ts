import { Effect } from "effect"

/**
 * Line windows over a file read in blocks: the lines a read returns are found
 * without loading the file, and memory stays bounded by the block size plus
 * the window (each line kept only up to a cap). A tail window is found by
 * reading backwards from the end, so the last lines of a huge file cost a few
 * blocks, not a scan.
 */

/** Random-access bytes: an open file, or a buffer in memory. */
export interface ByteSource<E> {
  /** Bytes available; reading stops here. */
  readonly size: number
  /** Reads into `into` from byte `position`; the count read (0 at the end). */
  readonly readAt: (position: number, into: Buffer) => Effect.Effect<number, E>
}

/** A source over bytes already in memory. */
export const memorySource = (bytes: Uint8Array): ByteSource<never> => ({
  size: bytes.length,
  readAt: (position, into) =>
    Effect.sync(() => {
      const n = Math.max(0, Math.min(into.length, bytes.length - position))
      if (n > 0) into.set(bytes.subarray(position, position + n))
      return n
    }),
})

/** One line of a window, as bytes. */
export interface RawLine {
  /** The line's first bytes (at most the cap), without its line break. */
  readonly head: Uint8Array
  /** The line's whole length in bytes, without its line break (the CR of a CRLF excluded). */
  readonly length: number
  /** Whether the line ended with CRLF. */
  readonly crlf: boolean
  /** Byte position of the line's first byte in the source (its rest is read from there). */
  readonly start: number
}

export interface ForwardOptions {
  /** Byte position of a line start where counting begins (after a BOM). */
  readonly start: number
  /** Lines to skip before the window. */
  readonly skip: number
  /** Most lines in the window. */
  readonly limit: number
  /** Bytes kept per line; the rest of a longer line is counted, not kept. */
  readonly maxLineBytes: number
  /** Stop the window before a line that would take its cost past this (the first line always fits). */
  readonly maxWindowBytes?: number
  /** What a line costs against `maxWindowBytes`. Default: its kept bytes plus its line break. */
  readonly cost?: (line: RawLine) => number
  /** Keep counting lines to the end of the source once the window is full. */
  readonly countAll: boolean
  readonly blockSize?: number
}

export interface ForwardResult {
  readonly lines: ReadonlyArray<RawLine>
  /** Byte position just after the window's last line break (`start` + skipped bytes when the window is empty). */
  readonly end: number
  /** Lines from `start` to the end of the source, when the scan reached the end. */
  readonly total: number | undefined
  /** The line breaks from `start` to the end, by kind, when the scan reached the end (with `total`). */
  readonly breaks?: LineBreaks
  /** Why the window ended: its line limit, its byte budget, or the end of the source. */
  readonly stoppedBy: "limit" | "bytes" | "eof"
}

/** Line breaks counted by kind: `\r\n` and a lone `\n`. */
export interface LineBreaks {
  readonly crlf: number
  readonly lf: number
}

/** Blocks for scans (counting, skipping); small windows near a known position read less. */
const SCAN_BLOCK = 1 << 20
const WINDOW_BLOCK = 64 << 10
const NL = 10
const CR = 13

const concat = (chunks: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (chunks.length === 1 && chunks[0]!.length === length) return chunks[0]!
  const out = new Uint8Array(length)
  let at = 0
  for (const c of chunks) {
    const n = Math.min(c.length, length - at)
    if (n <= 0) break
    out.set(c.subarray(0, n), at)
    at += n
  }
  return out
}

/**
 * Reads forward from `start`: skips `skip` lines, keeps up to `limit` lines
 * (each capped at `maxLineBytes`), then stops — or, with `countAll`, keeps
 * counting line feeds to the end without keeping anything. One block buffer
 * is reused throughout.
 */
export const readForward = <E>(source: ByteSource<E>, options: ForwardOptions): Effect.Effect<ForwardResult, E> =>
  Effect.gen(function* () {
    const { start, skip, limit, maxLineBytes, countAll } = options
    const budget = options.maxWindowBytes ?? Number.POSITIVE_INFINITY
    const cost = options.cost ?? ((line: RawLine) => line.head.length + 1)
    const size = source.size
    const blockSize = options.blockSize ?? (countAll || skip > 0 ? SCAN_BLOCK : WINDOW_BLOCK)
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(blockSize, size - start)))
    const lines: Array<RawLine> = []
    let windowBytes = 0
    let windowDone = limit <= 0
    let stoppedBy: ForwardResult["stoppedBy"] = windowDone ? "limit" : "eof"
    let end = start
    // The line being read.
    let index = 0
    let chunks: Array<Uint8Array> = []
    let kept = 0
    let length = 0
    let lastByte = -1
    // Breaks by kind, counted in the same pass as the lines (a read's line-ending style needs no second scan).
    let crlfBreaks = 0
    let lfBreaks = 0

    // `after`: the position after the line's break (or its last byte when it has none).
    const complete = (after: number, broken: boolean) => {
      if (broken) {
        if (lastByte === CR && length > 0) crlfBreaks++
        else lfBreaks++
      }
      if (!windowDone && index >= skip) {
        const crlf = lastByte === CR && length > 0
        const content = length - (crlf ? 1 : 0)
        const line: RawLine = { head: concat(chunks, Math.min(kept, content)), length: content, crlf, start: after - length - (broken ? 1 : 0) }
        const lineCost = cost(line)
        if (lines.length > 0 && windowBytes + lineCost > budget) {
          windowDone = true
          stoppedBy = "bytes"
        } else {
          lines.push(line)
          windowBytes += lineCost
          end = after
          if (lines.length >= limit) {
            windowDone = true
            stoppedBy = "limit"
          }
        }
      } else if (index < skip) end = after
      index++
      chunks = []
      kept = 0
      length = 0
      lastByte = -1
    }

    let position = start
    for (;;) {
      if (windowDone && !countAll) {
        return end >= size
          ? { lines, end, total: index, breaks: { crlf: crlfBreaks, lf: lfBreaks }, stoppedBy }
          : { lines, end, total: undefined, stoppedBy }
      }
      const n = position < size ? yield* source.readAt(position, buffer) : 0
      if (n <= 0) break
      const view = n === buffer.length ? buffer : buffer.subarray(0, n)
      let i = 0
      while (i < n) {
        if (windowDone) {
          // Counting only: whole lines in the rest of the block, then the open line's tail.
          const last = view.lastIndexOf(NL)
          if (last >= i) {
            for (let j = view.indexOf(NL, i); j !== -1; j = view.indexOf(NL, j + 1)) {
              index++
              // The byte before a break at the block's start is the open line's last one.
              if ((j > 0 ? view[j - 1] : lastByte) === CR) crlfBreaks++
              else lfBreaks++
            }
            length = n - last - 1
          } else length += n - i
          lastByte = view[n - 1]!
          i = n
          break
        }
        const nl = view.indexOf(NL, i)
        const segmentEnd = nl === -1 ? n : nl
        if (index >= skip && kept < maxLineBytes && segmentEnd > i) {
          const take = Math.min(segmentEnd - i, maxLineBytes - kept)
          const copy = new Uint8Array(take)
          copy.set(view.subarray(i, i + take))
          chunks.push(copy)
          kept += take
        }
        length += segmentEnd - i
        if (segmentEnd > i) lastByte = view[segmentEnd - 1]!
        if (nl === -1) break
        complete(position + nl + 1, true)
        i = nl + 1
      }
      position += n
    }
    // An unterminated last line.
    if (length > 0) complete(position, false)
    return { lines, end, total: index, breaks: { crlf: crlfBreaks, lf: lfBreaks }, stoppedBy: windowDone ? stoppedBy : "eof" }
  })

/** Counts the lines from `start` to the end (a last line without a line feed counts). */
export const countLines = <E>(source: ByteSource<E>, start: number, blockSize = SCAN_BLOCK): Effect.Effect<number, E> =>
  Effect.map(readForward(source, { start, skip: 0, limit: 0, maxLineBytes: 0, countAll: true, blockSize }), (r) => r.total ?? 0)

export interface TailStart {
  /** Byte position where the last `found` lines begin. */
  readonly position: number
  /** How many lines start at or after `position` (fewer than asked when the source has fewer). */
  readonly found: number
  /** Whether the scan reached `start`, so `found` is the source's whole line count. */
  readonly reachedStart: boolean
}

/**
 * Finds where the last `lines` lines begin by reading backwards from the end
 * in blocks; only the blocks holding those lines are read.
 */
export const findTailStart = <E>(
  source: ByteSource<E>,
  start: number,
  lines: number,
  blockSize = WINDOW_BLOCK,
): Effect.Effect<TailStart, E> =>
  Effect.gen(function* () {
    const size = source.size
    if (size <= start) return { position: start, found: 0, reachedStart: true }
    const one = Buffer.allocUnsafe(1)
    yield* source.readAt(size - 1, one)
    // A final line feed ends the last line; it does not begin another.
    let position = one[0] === NL ? size - 1 : size
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(blockSize, position - start)))
    let count = 0
    while (position > start) {
      const length = Math.min(buffer.length, position - start)
      const blockStart = position - length
      const n = yield* source.readAt(blockStart, length === buffer.length ? buffer : buffer.subarray(0, length))
      if (n < length) break
      const view = length === buffer.length ? buffer : buffer.subarray(0, length)
      for (let j = view.lastIndexOf(NL, length - 1); j !== -1; j = j > 0 ? view.lastIndexOf(NL, j - 1) : -1) {
        count++
        if (count >= lines) return { position: blockStart + j + 1, found: count, reachedStart: false }
      }
      position = blockStart
    }
    return { position: start, found: count + 1, reachedStart: true }
  })
