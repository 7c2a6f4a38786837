/**
 * A text file as lines, each with its own terminator, so a file goes back to
 * bytes exactly as it came: LF, CRLF or mixed endings, a missing final
 * newline, a UTF-8 byte-order mark.
 */
export interface TextLines {
  /** Line contents without their terminators (and without the BOM when `bom`). */
  readonly lines: ReadonlyArray<string>
  /** Each line's terminator: "\n", "\r\n", or "" for a last line without one. */
  readonly eols: ReadonlyArray<string>
  /** The text started with a UTF-8 byte-order mark, kept out of `lines[0]`. */
  readonly bom: boolean
}

export const EMPTY_TEXT: TextLines = { lines: [], eols: [], bom: false }

const BOM = "\uFEFF"

/**
 * Decodes file bytes as UTF-8 text; undefined when they are not text (a NUL
 * byte, or invalid UTF-8), so a caller can refuse to patch them.
 */
export const decodeText = (bytes: Uint8Array): string | undefined => {
  if (bytes.includes(0)) return undefined
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** Splits text into lines. With `splitBom` a leading BOM is set aside (and restored by {@link joinLines}). */
export const splitLines = (text: string, splitBom = true): TextLines => {
  const bom = splitBom && text.startsWith(BOM)
  const body = bom ? text.slice(1) : text
  if (body === "") return { lines: [], eols: [], bom }
  const parts = body.split("\n")
  const endsWithNewline = parts[parts.length - 1] === ""
  if (endsWithNewline) parts.pop()
  const lines: Array<string> = new Array(parts.length)
  const eols: Array<string> = new Array(parts.length)
  const last = parts.length - 1
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    if (i === last && !endsWithNewline) {
      lines[i] = p
      eols[i] = ""
    } else if (p.endsWith("\r")) {
      lines[i] = p.slice(0, -1)
      eols[i] = "\r\n"
    } else {
      lines[i] = p
      eols[i] = "\n"
    }
  }
  return { lines, eols, bom }
}

export const joinLines = (t: TextLines): string => {
  const parts: Array<string> = new Array(t.lines.length)
  for (let i = 0; i < t.lines.length; i++) parts[i] = t.lines[i]! + t.eols[i]!
  return (t.bom ? BOM : "") + parts.join("")
}

/** The terminator most lines use ("\n" when there are none). */
export const dominantEol = (t: TextLines): "\n" | "\r\n" => {
  let crlf = 0
  let lf = 0
  for (const e of t.eols) {
    if (e === "\r\n") crlf++
    else if (e === "\n") lf++
  }
  return crlf > lf ? "\r\n" : "\n"
}

/** Whether the text ends with a line terminator (an empty text counts as ending cleanly). */
export const endsWithNewline = (t: TextLines): boolean => t.eols.length === 0 || t.eols[t.eols.length - 1] !== ""
