/** A text body's characters, and how its bytes were read when not as UTF-8 or not as the server declared. */
export interface DecodedBody {
  readonly text: string
  /** The encoding the bytes were read as, as the decoder names it ("windows-1252", "shift_jis"; "utf-8"). */
  readonly charset: string
  /** Why that encoding, when no usable declaration named it ("not UTF-8, and no charset declared"). */
  readonly guessed?: string
}

const declaredCharset = (text: string): string | undefined => /charset\s*=\s*["']?([\w.:-]+)/i.exec(text)?.[1]

/**
 * The body's encoding as declared: a byte-order mark, else the Content-Type charset, else (for HTML) a
 * `<meta charset>` or http-equiv declaration in the first 1024 bytes, or (for XML) its `<?xml encoding>`.
 */
const declaredOf = (bytes: Uint8Array, kind: "html" | "json" | "text", contentType: string | null): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  const fromHeader = declaredCharset(contentType ?? "")
  if (fromHeader !== undefined) return fromHeader
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024))
  if (kind === "html") {
    for (const meta of head.match(/<meta\b[^>]*>/gi) ?? []) {
      const found = declaredCharset(meta)
      // A page cannot declare UTF-16 in ASCII bytes; browsers read such a declaration as UTF-8.
      if (found !== undefined) return /^utf-16/i.test(found) ? "utf-8" : found
    }
  }
  return /^<\?xml\b[^>]*\bencoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1]
}

/** Whether the bytes are UTF-8 (a character cut by the end of a download that stopped early still counts). */
const isUtf8 = (bytes: Uint8Array, complete: boolean): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete })
    return true
  } catch {
    return false
  }
}

/**
 * Reads a text body as a browser does: in the declared encoding; with none (or a name no decoder knows), as UTF-8
 * when the bytes are UTF-8, else as windows-1252, the web's fallback. Decoding Latin-1 text as UTF-8 would turn
 * every accented letter into U+FFFD, which no later step can undo, and the model would not know why.
 */
export const decodeBody = (bytes: Uint8Array, kind: "html" | "json" | "text", contentType: string | null, complete: boolean): DecodedBody => {
  const declared = declaredOf(bytes, kind, contentType)
  if (declared !== undefined) {
    try {
      const decoder = new TextDecoder(declared as "utf-8")
      return { text: decoder.decode(bytes), charset: decoder.encoding }
    } catch {
      // A label no decoder knows: read as if nothing were declared, and say which name was not known.
    }
  }
  const why = declared === undefined ? "no charset declared" : `charset "${declared}" unknown`
  if (isUtf8(bytes, complete)) return { text: new TextDecoder().decode(bytes), charset: "utf-8", ...(declared === undefined ? {} : { guessed: why }) }
  return { text: new TextDecoder("windows-1252").decode(bytes), charset: "windows-1252", guessed: `not UTF-8, and ${why}` }
}
