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
  readonly keptLines: number
  readonly keptBytes: number
}

const encoder = new TextEncoder()
const byteLength = (s: string) => encoder.encode(s).length

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export const cutBytes = (s: string, maxBytes: number, fromEnd = false): string => {
  const bytes = encoder.encode(s)
  if (bytes.length <= maxBytes) return s
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

/** Takes whole lines from one end while both budgets hold; a single over-long line is cut at a character boundary. */
const take = (lines: ReadonlyArray<string>, maxLines: number, maxBytes: number, fromEnd: boolean): Array<string> => {
  const out: Array<string> = []
  let bytes = 0
  const n = lines.length
  for (let k = 0; k < n && out.length < maxLines; k++) {
    const line = lines[fromEnd ? n - 1 - k : k]!
    const cost = byteLength(line) + (out.length > 0 ? 1 : 0)
    if (bytes + cost > maxBytes) {
      if (out.length === 0) out.push(cutBytes(line, maxBytes, fromEnd))
      break
    }
    out.push(line)
    bytes += cost
  }
  return fromEnd ? out.reverse() : out
}

/**
 * Applies the line and byte budgets. Within budget the text comes
 * back unchanged; otherwise the kept part (head, tail, or both with a marker
 * line between them) and the counts that go into data.truncation.
 */
export const truncateText = (text: string, limits: TruncateLimits): Truncated => {
  const originalBytes = byteLength(text)
  const originalLines = countLines(text)
  if (originalLines <= limits.maxLines && originalBytes <= limits.maxBytes) {
    return { truncated: false, text, originalLines, originalBytes, keptLines: originalLines, keptBytes: originalBytes }
  }
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  let kept: string
  if (limits.direction === "head_tail") {
    const head = take(lines, Math.ceil(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), false)
    const tail = take(lines.slice(head.length), Math.floor(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), true)
    const omitted = lines.length - head.length - tail.length
    kept = [...head, `… [${omitted} lines omitted] …`, ...tail].join("\n")
  } else {
    kept = take(lines, limits.maxLines, limits.maxBytes, limits.direction === "tail").join("\n")
  }
  return { truncated: true, text: kept, originalLines, originalBytes, keptLines: countLines(kept), keptBytes: byteLength(kept) }
}
