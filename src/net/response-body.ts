import { decodeBody } from "./body-charset.ts"
import { htmlToMarkdown } from "./html-to-markdown.ts"

/** What a response body is, for the model. */
export type BodyKind = "html" | "json" | "text" | "image" | "binary"

/** The media type without parameters, lowercased ("text/html"). */
export const mediaType = (contentType: string | null): string => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/** How a body of this type (and these first bytes, for an unknown type) is treated. */
export const bodyKind = (contentType: string | null, firstBytes: Uint8Array): BodyKind => {
  const type = mediaType(contentType)
  if (type.startsWith("image/") && type !== "image/svg+xml") return "image"
  if (type === "text/html" || type === "application/xhtml+xml") return "html"
  if (type === "application/json" || type.endsWith("+json")) return "json"
  if (type.startsWith("text/") || type.endsWith("+xml") || type === "application/xml" || type === "application/javascript" || type === "image/svg+xml") {
    return "text"
  }
  if (type.startsWith("audio/") || type.startsWith("video/") || type.startsWith("font/")) return "binary"
  // Anything else (no type, octet-stream, application/*): text unless it holds NUL bytes.
  const head = firstBytes.subarray(0, 8000)
  if (head.includes(0)) return "binary"
  return /^\s*<(!doctype html|html)/i.test(new TextDecoder().decode(head)) ? "html" : "text"
}

/** Cuts text to at most `maxBytes` of UTF-8 without splitting a character. */
export const cutUtf8 = (text: string, maxBytes: number): { readonly text: string; readonly cut: boolean } => {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= maxBytes) return { text, cut: false }
  let end = maxBytes
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), cut: true }
}

export interface RenderedText {
  readonly kind: "html" | "json" | "text"
  readonly content: string
  /** The text was cut at the size limit (or the download stopped early). */
  readonly truncated: boolean
  /** The whole text rendered from what was downloaded, when `content` is only its start. */
  readonly whole?: string
  /** Cut by the line limit, the byte limit not reached. */
  readonly cutByLines?: boolean
  /** The page title, for HTML. */
  readonly title?: string
  /** The encoding the text was read from, when not UTF-8 or not as declared; `guessed` says why (see decodeBody). */
  readonly charset?: string
  readonly guessed?: string
}

/**
 * A text body as the model should read it: HTML as Markdown, JSON
 * pretty-printed (when the whole document arrived and parses), other text as
 * is, then cut to `maxLines` lines and `maxBytes`. `complete` is false when the download itself
 * stopped at its limit.
 */
export const renderText = (
  bytes: Uint8Array,
  kind: "html" | "json" | "text",
  contentType: string | null,
  baseUrl: string,
  maxBytes: number,
  complete: boolean,
  maxLines = Number.POSITIVE_INFINITY,
): RenderedText => {
  const { text: decoded, charset, guessed } = decodeBody(bytes, kind, contentType, complete)
  let content = decoded
  let title: string | undefined
  if (kind === "html") {
    const md = htmlToMarkdown(decoded, baseUrl)
    content = md.markdown
    title = md.title
  } else if (kind === "json" && complete) {
    try {
      content = JSON.stringify(JSON.parse(decoded), null, 2)
    } catch {
      content = decoded
    }
  }
  const lines = cutLines(content, maxLines)
  const cut = cutUtf8(lines.text, maxBytes)
  const shortened = lines.cut || cut.cut
  return {
    kind,
    content: cut.text,
    truncated: shortened || !complete,
    ...(shortened ? { whole: content } : {}),
    ...(lines.cut && !cut.cut ? { cutByLines: true } : {}),
    ...(title ? { title } : {}),
    ...(charset !== "utf-8" || guessed ? { charset } : {}),
    ...(guessed ? { guessed } : {}),
  }
}

/** The first `maxLines` lines of `text` (each with its line break), and whether any were left out. */
const cutLines = (text: string, maxLines: number): { readonly text: string; readonly cut: boolean } => {
  if (!Number.isFinite(maxLines)) return { text, cut: false }
  let end = -1
  for (let n = 0; n < maxLines; n++) {
    end = text.indexOf("\n", end + 1)
    if (end === -1) return { text, cut: false }
  }
  return end + 1 < text.length ? { text: text.slice(0, end + 1), cut: true } : { text, cut: false }
}
