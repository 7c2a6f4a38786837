import { Buffer } from "node:buffer"
import { counted } from "../protocol/plural.ts"

/** Which part of an over-long output is kept. */
export type TruncateDirection = "head" | "tail" | "head_tail"

export interface TruncateLimits {
  readonly maxLines: number
  readonly maxBytes: number
  readonly direction: TruncateDirection
}

export interface Truncated {
  readonly truncated: boolean
  readonly text: string
  readonly originalLines: number
  readonly originalBytes: number
  /** Lines of the original text kept (an omission marker line is not one of them). */
  readonly keptLines: number
  readonly keptBytes: number
  /** 0-based line where the part not shown starts: the Read offset into the saved text that shows it. */
  readonly resumeAt: number
}

const encoder = new TextEncoder()
/** UTF-8 length, counted without encoding (the same count as TextEncoder's: a lone surrogate is 3 bytes). */
export const utf8Length = (s: string): number => Buffer.byteLength(s, "utf8")

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export const cutBytes = (s: string, maxBytes: number, fromEnd = false): string => {
  if (utf8Length(s) <= maxBytes) return s
  // Only the kept end is encoded: maxBytes + 2 UTF-16 units make at least maxBytes + 1 bytes, so the cut
  // falls inside them, before a surrogate pair that the slice may have split at its far edge.
  const edge = maxBytes + 2
  const bytes = encoder.encode(s.length <= edge ? s : fromEnd ? s.slice(s.length - edge) : s.slice(0, edge))
  if (!fromEnd) {
    let end = maxBytes
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
    return new TextDecoder().decode(bytes.subarray(0, end))
  }
  let start = bytes.length - maxBytes
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return new TextDecoder().decode(bytes.subarray(start))
}

const countLines = (s: string) => (s === "" ? 0 : s.split("\n").length - (s.endsWith("\n") ? 1 : 0))

/**
 * The lines of a text as `text.split("\n")` gives them, less the empty one
 * after a final newline, read from either end on demand: a multi-megabyte
 * output is never split whole when a few thousand lines are kept.
 */
class Lines {
  /** End of the last line (a final newline excluded). */
  private readonly end: number
  /** How many lines there are. */
  readonly count: number

  constructor(private readonly text: string) {
    this.end = text.endsWith("\n") ? text.length - 1 : text.length
    let n = 1
    for (let at = text.indexOf("\n"); at !== -1 && at < this.end; at = text.indexOf("\n", at + 1)) n++
    this.count = n
  }

  /** The lines from the start, in order. */
  *fromStart(): Generator<string> {
    const { text, end } = this
    for (let at = 0; ; ) {
      const nl = text.indexOf("\n", at)
      if (nl === -1 || nl >= end) return yield text.slice(at, end)
      yield text.slice(at, nl)
      at = nl + 1
    }
  }

  /** The lines from the end, last first. */
  *fromEnd(): Generator<string> {
    const { text } = this
    for (let end = this.end; ; ) {
      const nl = end === 0 ? -1 : text.lastIndexOf("\n", end - 1)
      yield text.slice(nl + 1, end)
      if (nl === -1) return
      end = nl
    }
  }
}

/**
 * Takes whole lines (at most `available` of them, from one end) while both budgets hold. A line
 * longer than the whole byte budget, which could never be shown whole, is cut at a character
 * boundary to the room left (a one-line JSON answer after a header line is not dropped entirely).
 * Returned in text order.
 */
const take = (
  lines: Lines,
  available: number,
  maxLines: number,
  maxBytes: number,
  fromEnd: boolean,
): { readonly kept: Array<string>; readonly whole: number } => {
  const out: Array<string> = []
  let whole = -1
  let bytes = 0
  let k = 0
  for (const line of fromEnd ? lines.fromEnd() : lines.fromStart()) {
    if (k++ >= available || out.length >= maxLines) break
    const size = utf8Length(line)
    const cost = size + (out.length > 0 ? 1 : 0)
    if (bytes + cost > maxBytes) {
      const room = maxBytes - bytes - (out.length > 0 ? 1 : 0)
      if (out.length === 0 || (room > 0 && size > maxBytes)) {
        whole = out.length
        out.push(cutBytes(line, room, fromEnd))
      }
      break
    }
    out.push(line)
    bytes += cost
  }
  return { kept: fromEnd ? out.reverse() : out, whole: whole === -1 ? out.length : whole }
}

/**
 * Applies the line and byte budgets. Within budget the text comes
 * back unchanged; otherwise the kept part (head, tail, or both with a marker
 * line between them) and the counts that go into data.truncation.
 */
export const truncateText = (text: string, limits: TruncateLimits): Truncated => {
  const originalBytes = utf8Length(text)
  const lines = new Lines(text)
  const originalLines = text === "" ? 0 : lines.count
  if (originalLines <= limits.maxLines && originalBytes <= limits.maxBytes) {
    return { truncated: false, text, originalLines, originalBytes, keptLines: originalLines, keptBytes: originalBytes, resumeAt: originalLines }
  }
  const n = lines.count
  if (limits.direction === "head_tail") {
    const head = take(lines, n, Math.ceil(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), false)
    const tail = take(lines, n - head.kept.length, Math.floor(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), true)
    const omitted = n - head.kept.length - tail.kept.length
    const kept = [...head.kept, `… [${counted(omitted, "line")} omitted] …`, ...tail.kept].join("\n")
    const keptLines = head.kept.length + tail.kept.length
    return { truncated: true, text: kept, originalLines, originalBytes, keptLines, keptBytes: utf8Length(kept), resumeAt: head.whole }
  }
  const fromEnd = limits.direction === "tail"
  const { kept, whole } = take(lines, n, limits.maxLines, limits.maxBytes, fromEnd)
  const shown = kept.join("\n")
  return { truncated: true, text: shown, originalLines, originalBytes, keptLines: countLines(shown), keptBytes: utf8Length(shown), resumeAt: fromEnd ? 0 : whole }
}
