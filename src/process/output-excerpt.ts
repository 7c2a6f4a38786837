import { cutBytes } from "../output/truncate.ts"
import type { CapturedStream } from "./output-capture.ts"
import { counted } from "../protocol/plural.ts"

/** What the model is shown of one output stream. */
export interface Excerpt {
  /** All of the stream, or its head and tail around an omission marker. Without a trailing newline. */
  readonly text: string
  /** Part of the stream is not shown. */
  readonly truncated: boolean
  readonly omittedBytes: number
  readonly omittedLines: number
  /** 0-based line number where the omitted part starts (an offset for Read on the full file). */
  readonly omittedFromLine: number
  /** 1-based number of the last line holding omitted bytes (with omittedFromLine, the lines to read back). */
  readonly omittedToLine: number
  /** Byte offset in the stream where the omitted part starts. */
  readonly omittedFromByte: number
  /** The stream holds NUL bytes: it is described, not shown. */
  readonly binary: boolean
}

const LF = 10

/** Lines in a stream: newlines, plus an unterminated last line. */
export const lineCount = (s: CapturedStream): number =>
  s.newlines + (s.totalBytes > 0 && s.tail[s.tail.length - 1] !== LF ? 1 : 0)

const newlinesIn = (b: Uint8Array): number => {
  let n = 0
  let i = -1
  while ((i = b.indexOf(LF, i + 1)) !== -1) n++
  return n
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80

/** How many leading bytes of `buf` to show: at most `maxBytes` and `maxLines`, ending at a line end when one is near. */
const headEnd = (buf: Uint8Array, maxBytes: number, maxLines: number): number => {
  let end = Math.min(buf.length, maxBytes)
  let seen = 0
  for (let i = buf.indexOf(LF); i !== -1 && i < end; i = buf.indexOf(LF, i + 1)) {
    if (++seen === maxLines) {
      end = i + 1
      break
    }
  }
  if (end > 0 && buf[end - 1] !== LF) {
    const last = buf.lastIndexOf(LF, end - 1)
    if (last !== -1 && last + 1 >= end / 2) end = last + 1
    else while (end > 0 && isContinuation(buf[end])) end--
  }
  return end
}

/** Where the shown tail of `buf` starts: at most `maxBytes` and `maxLines`, starting at a line start when one is near. */
const tailStart = (buf: Uint8Array, maxBytes: number, maxLines: number): number => {
  let start = Math.max(0, buf.length - maxBytes)
  // The final newline ends the last line; it does not start another.
  let i = buf[buf.length - 1] === LF ? buf.length - 1 : buf.length
  for (let seen = 0; ; ) {
    i = i === 0 ? -1 : buf.lastIndexOf(LF, i - 1)
    if (i === -1 || i < start) break
    if (++seen === maxLines) {
      start = i + 1
      break
    }
  }
  if (start > 0 && buf[start - 1] !== LF) {
    const next = buf.indexOf(LF, start)
    if (next !== -1 && next + 1 - start <= (buf.length - start) / 2) start = next + 1
    else while (start < buf.length && isContinuation(buf[start])) start++
  }
  return start
}

// Terminal control sequences: CSI (colours, cursor moves), OSC (titles, links), and two-byte escapes.
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g
const ESC = /\x1b[@-Z\\-_]/g

/**
 * Text as a terminal would leave it: colour codes and other escape sequences
 * removed, and a carriage return overwriting its line (progress bars keep only
 * their last state).
 */
export const terminalText = (s: string): string => {
  const plain = s.replace(OSC, "").replace(CSI, "").replace(ESC, "").replace(/\r+\n/g, "\n")
  if (!plain.includes("\r")) return plain
  return plain
    .split("\n")
    .map((line) => {
      if (!line.includes("\r")) return line
      const parts = line.split("\r").filter((p) => p !== "")
      return parts[parts.length - 1] ?? ""
    })
    .join("\n")
}

const decoder = new TextDecoder("utf-8")
const show = (bytes: Uint8Array, maxBytes: number): string =>
  cutBytes(terminalText(decoder.decode(bytes)), maxBytes).replace(/\n$/, "")

/**
 * Picks what to show of a captured stream within `maxBytes` and `maxLines`:
 * everything when it fits, otherwise about half the budget from the start and
 * half from the end, cut at line boundaries, around a marker saying what was
 * left out: `[… N bytes / M lines omitted …]`.
 */
export const excerpt = (s: CapturedStream, maxBytes: number, maxLines: number): Excerpt => {
  const none = { truncated: false, omittedBytes: 0, omittedLines: 0, omittedFromLine: 0, omittedToLine: 0, omittedFromByte: 0, binary: false }
  if (s.totalBytes === 0) return { text: "", ...none }
  if (s.head.includes(0) || s.tail.includes(0)) {
    return {
      text: `(binary output: ${counted(s.totalBytes, "byte")})`,
      truncated: true,
      omittedBytes: s.totalBytes,
      omittedLines: lineCount(s),
      omittedFromLine: 0,
      omittedToLine: lineCount(s),
      omittedFromByte: 0,
      binary: true,
    }
  }
  if (s.complete && s.totalBytes <= maxBytes && lineCount(s) <= maxLines) {
    const rest = s.totalBytes - s.head.length
    const all = new Uint8Array(s.totalBytes)
    all.set(s.head)
    all.set(s.tail.subarray(s.tail.length - rest), s.head.length)
    return { text: show(all, maxBytes), ...none }
  }
  const headBytes = Math.floor(maxBytes / 2)
  const headLines = Math.max(1, Math.ceil(maxLines / 2))
  const head = s.head.subarray(0, headEnd(s.head, headBytes, headLines))
  let tail = s.tail.subarray(tailStart(s.tail, maxBytes - headBytes, Math.max(1, maxLines - headLines)))
  // Never show a byte twice (a short stream cut only for its line count).
  const overlap = head.length + tail.length - s.totalBytes
  if (overlap > 0) tail = tail.subarray(overlap)
  const omittedBytes = s.totalBytes - head.length - tail.length
  const headNewlines = newlinesIn(head)
  const omittedLines = s.newlines - headNewlines - newlinesIn(tail)
  const marker = `[… ${omittedBytes} bytes / ${counted(omittedLines, "line")} omitted …]`
  const parts = [show(head, headBytes), marker, show(tail, maxBytes - headBytes)].filter((p) => p !== "")
  return {
    text: parts.join("\n"),
    truncated: true,
    omittedBytes,
    omittedLines,
    omittedFromLine: headNewlines,
    // The line the omitted part ends in is one more when that part does not end with a newline (the tail starts
    // inside a line, or nothing is shown after it); unknown (the byte lies outside the capture) counts as inside.
    omittedToLine: headNewlines + omittedLines + (s.tail[s.tail.length - tail.length - 1] === LF ? 0 : 1),
    omittedFromByte: head.length,
    binary: false,
  }
}

/**
 * Shares a budget between two streams: each gets what it needs when both fit;
 * otherwise the smaller keeps what it needs up to half and the larger gets the
 * rest.
 */
export const share = (budget: number, a: number, b: number): readonly [number, number] => {
  if (a + b <= budget) return [a, b]
  const half = Math.floor(budget / 2)
  if (a <= half) return [a, budget - a]
  if (b <= half) return [budget - b, b]
  return [half, budget - half]
}
