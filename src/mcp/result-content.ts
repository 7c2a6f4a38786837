import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

/** A tool result's content as the envelope carries it (data.content) and as the model reads it (text). */
export interface MappedResult {
  readonly data: Record<string, unknown>
  readonly text: string
  readonly isError: boolean
}

const sameJson = (text: string, value: unknown): boolean => {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value)
  } catch {
    return false
  }
}

const size = (base64: string) => {
  const bytes = Math.floor((base64.length * 3) / 4)
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`
}

/**
 * Maps an MCP CallToolResult: text blocks in order, images and audio named
 * with their type and size (their data stays in data.content), embedded
 * resources with their text, links by URI, and structuredContent as JSON —
 * unless a text block already carries the same JSON (servers are asked to send
 * both), which is then not repeated.
 */
export const mapToolResult = (result: CallToolResult): MappedResult => {
  const blocks = (result.content ?? []) as ReadonlyArray<Record<string, any>>
  const structured = result.structuredContent
  const parts: Array<string> = []
  let structuredShown = false
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        if (structured !== undefined && sameJson(String(block.text), structured)) structuredShown = true
        parts.push(String(block.text))
        break
      case "image":
      case "audio":
        parts.push(`[${block.type}: ${block.mimeType ?? "unknown type"}, ${size(String(block.data ?? ""))}; the data is in the envelope's data.content]`)
        break
      case "resource": {
        const r = block.resource ?? {}
        if (typeof r.text === "string") parts.push(`[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`)
        else parts.push(`[resource ${r.uri}: ${r.mimeType ?? "binary"}, ${size(String(r.blob ?? ""))}]`)
        break
      }
      case "resource_link":
        parts.push(`[resource link: ${block.name ?? block.uri} ${block.uri}${block.description ? ` — ${block.description}` : ""}]`)
        break
      default:
        parts.push(`[${String(block.type)} content]`)
    }
  }
  if (structured !== undefined && !structuredShown) parts.push(JSON.stringify(structured, null, 2))
  const text = parts.join("\n")
  return {
    data: {
      content: blocks,
      ...(structured !== undefined ? { structured_content: structured } : {}),
      ...(result.isError === true ? { is_error: true } : {}),
    },
    text: text === "" ? "(the tool returned no content)" : text,
    isError: result.isError === true,
  }
}
