import { looksBinary } from "../workspace/text-sniff.ts"

/**
 * A text file seen as lines without copying it: an index of line starts over
 * the original string, so a hunk touches only its own lines and untouched
 * stretches go back out as slices, byte for byte (LF, CRLF or mixed endings,
 * a missing final newline, a UTF-8 byte-order mark).
 */
export class LineView {
  /** The text without its BOM. */
  readonly text: string
  /** The text started with a UTF-8 byte-order mark (kept out of line 0). */
  readonly bom: boolean
  readonly count: number
  /** The last line ends with a terminator (true for an empty text). */
  readonly finalNewline: boolean
  /** How many lines end in "\r\n" and in a bare "\n". */
  readonly crlfLines: number
  readonly lfLines: number
  private readonly starts: Array<number>

  constructor(text: string, splitBom = true) {
    this.bom = splitBom && text.startsWith(BOM)
    this.text = this.bom ? text.slice(1) : text
    const t = this.text
    const starts: Array<number> = []
    let crlf = 0
    let from = 0
    while (from < t.length) {
      starts.push(from)
      const nl = t.indexOf("\n", from)
      if (nl < 0) {
        from = t.length
        break
      }
      if (nl > from && t.charCodeAt(nl - 1) === 13) crlf++
      from = nl + 1
    }
    this.starts = starts
    this.count = starts.length
    this.finalNewline = t.length === 0 || t.endsWith("\n")
    this.crlfLines = crlf
    this.lfLines = this.count - crlf - (this.finalNewline ? 0 : 1)
  }

  /** Where line `i` starts; `count` gives the end of the text. */
  offset(i: number): number {
    return i >= this.count ? this.text.length : this.starts[i]!
  }

  /** Line `i`'s terminator: "\n", "\r\n", or "" for a last line without one. */
  eol(i: number): "" | "\n" | "\r\n" {
    const end = this.offset(i + 1)
    if (i === this.count - 1 && !this.finalNewline) return ""
    return end >= 2 && this.text.charCodeAt(end - 2) === 13 && end - 2 >= this.starts[i]! ? "\r\n" : "\n"
  }

  /** Line `i` without its terminator. */
  line(i: number): string {
    return this.text.slice(this.starts[i]!, this.offset(i + 1) - this.eol(i).length)
  }

  /** The terminator most lines use ("\n" when there are none). */
  get dominantEol(): "\n" | "\r\n" {
    return this.crlfLines > this.lfLines ? "\r\n" : "\n"
  }
}

const BOM = "\uFEFF"
export const BYTE_ORDER_MARK = BOM

/**
 * Decodes file bytes as UTF-8 text; undefined when they are not (binary by
 * the rule every tool shares, or invalid UTF-8), so a caller can try another
 * encoding or refuse to patch them.
 */
export const decodeText = (bytes: Uint8Array): string | undefined => {
  if (looksBinary(bytes)) return undefined
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}
