import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

/**
 * A tool result as it came: its content blocks are not checked against the
 * protocol's block types, so that one block anvil cannot read (a type of a
 * newer protocol, a block missing a field) costs that block, not the call.
 */
export type RawToolResult = Omit<CallToolResult, "content"> & { readonly content?: unknown }

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

const sizeText = (bytes: number) => (bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`)
const size = (base64: string) => sizeText(Math.floor((base64.length * 3) / 4))

const isString = (value: unknown): value is string => typeof value === "string"

/** The fields each block type of the protocol (2025-11-25) requires, as the reason a block lacks them; undefined when it has them. */
const missingField = (block: Record<string, any>): string | undefined => {
  switch (block.type) {
    case "text":
      return isString(block.text) ? undefined : "no text"
    case "image":
    case "audio":
      return isString(block.data) && isString(block.mimeType) ? undefined : isString(block.data) ? "no mimeType" : "no data"
    case "resource_link":
      return isString(block.uri) && isString(block.name) ? undefined : isString(block.uri) ? "no name" : "no uri"
    case "resource": {
      const r = block.resource
      if (typeof r !== "object" || r === null || !isString(r.uri)) return "no resource with a uri"
      return isString(r.text) || isString(r.blob) ? undefined : "a resource with neither text nor blob"
    }
    default:
      return undefined
  }
}

const KNOWN = new Set(["text", "image", "audio", "resource_link", "resource"])

/** The line that stands for a block anvil cannot show: what it is, its size, where it is kept. */
const placeholder = (block: unknown): string => {
  const bytes = sizeText(new TextEncoder().encode(JSON.stringify(block) ?? "").length)
  const kept = "it is kept in the envelope's data.content"
  if (typeof block !== "object" || block === null || Array.isArray(block)) {
    return `[content block that is not an object (${block === null ? "null" : Array.isArray(block) ? "array" : typeof block}), ${bytes}; ${kept}]`
  }
  const type = (block as { type?: unknown }).type
  if (!isString(type)) return `[content block without a type, ${bytes}; ${kept}]`
  const problem = missingField(block)
  if (problem !== undefined) return `[${type} block anvil cannot read (${problem}), ${bytes}; ${kept}]`
  return `[content block of type ${JSON.stringify(type.slice(0, 60))} (a type anvil does not show), ${bytes}; ${kept}]`
}

/** Why `content` is not a list of blocks (then the answer is not MCP at all); undefined when it is one or absent. */
export const contentProblem = (result: RawToolResult): string | undefined => {
  const content = result.content
  if (content === undefined || Array.isArray(content)) return undefined
  return `content: expected a list of content blocks, received ${content === null ? "null" : typeof content}`
}

/**
 * Maps an MCP CallToolResult: text blocks in order, images and audio named
 * with their type and size (their data stays in data.content), embedded
 * resources with their text, links by URI, and structuredContent as JSON —
 * unless a text block already carries the same JSON (servers are asked to send
 * both), which is then not repeated. A block of a type anvil does not know, or
 * one missing a field its type requires, is a line saying so (type, size);
 * the other blocks are kept.
 */
export const mapToolResult = (result: RawToolResult): MappedResult => {
  const blocks = (Array.isArray(result.content) ? result.content : []) as ReadonlyArray<unknown>
  const structured = result.structuredContent
  const parts: Array<string> = []
  let structuredShown = false
  for (const item of blocks) {
    const block = item as Record<string, any>
    if (typeof item !== "object" || item === null || !KNOWN.has(block.type) || missingField(block) !== undefined) {
      parts.push(placeholder(item))
      continue
    }
    switch (block.type) {
      case "text":
        if (structured !== undefined && sameJson(block.text, structured)) structuredShown = true
        parts.push(block.text)
        break
      case "image":
      case "audio":
        parts.push(`[${block.type}: ${block.mimeType}, ${size(block.data)}; the data is in the envelope's data.content]`)
        break
      case "resource": {
        const r = block.resource
        if (isString(r.text)) parts.push(`[resource ${r.uri}${isString(r.mimeType) ? ` (${r.mimeType})` : ""}]\n${r.text}`)
        else parts.push(`[resource ${r.uri}: ${isString(r.mimeType) ? r.mimeType : "binary"}, ${size(r.blob)}]`)
        break
      }
      case "resource_link":
        parts.push(`[resource link: ${block.name} ${block.uri}${isString(block.description) ? ` — ${block.description}` : ""}]`)
        break
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
