import type { Tool } from "../tool-framework/definition.ts"

const SUMMARY_CHARS = 90

/** A tool in one line for the catalogue: the first sentence of its description, cut short. */
export const toolSummary = (tool: Tool): string => {
  const text = tool.description.replace(/\s+/g, " ").trim()
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(text)?.[1] ?? text
  return sentence.length > SUMMARY_CHARS ? `${sentence.slice(0, SUMMARY_CHARS - 1).trimEnd()}…` : sentence
}

/**
 * The family a tool name belongs to, as the prefix its members share: an MCP
 * server's `mcp__SERVER__`, else the word before the first underscore
 * (`git_`, `lsp_`), which is also the group load_tools loads by that word.
 */
export const familyOf = (name: string): string | undefined => {
  if (name.startsWith("mcp__")) {
    const end = name.lastIndexOf("__")
    return end > "mcp__".length ? name.slice(0, end + 2) : undefined
  }
  const end = name.indexOf("_")
  return end > 0 && end < name.length - 1 ? name.slice(0, end + 1) : undefined
}

// A parenthesis closing every summary of a family ("(language server)") is said once, after the family.
const SHARED_TAIL = /\s(\([^()]+\))\.?$/

/**
 * The catalogue of on-demand tools: one line per tool, except that tools
 * sharing a family prefix share one line, the prefix written once
 * (`- git_*: status: git status; diff: git diff`): with many tools of one MCP
 * server, the server's prefix would otherwise take most of the bytes.
 */
export const catalogueLines = (tools: ReadonlyArray<Tool>): ReadonlyArray<string> => {
  const families = new Map<string, Array<Tool>>()
  for (const tool of tools) {
    const family = familyOf(tool.name) ?? tool.name
    families.set(family, [...(families.get(family) ?? []), tool])
  }
  return [...families].map(([family, members]) => {
    if (members.length === 1) return `- ${members[0]!.name}: ${toolSummary(members[0]!)}`
    const summaries = members.map(toolSummary)
    const tail = SHARED_TAIL.exec(summaries[0]!)?.[1]
    const shared = tail !== undefined && summaries.every((s) => SHARED_TAIL.exec(s)?.[1] === tail) ? tail : undefined
    const parts = members.map((t, i) => {
      const summary = shared ? summaries[i]!.replace(SHARED_TAIL, "") : summaries[i]!.replace(/\.$/, "")
      return `${t.name.slice(family.length)}: ${summary}`
    })
    return `- ${family}*${shared ? ` ${shared}` : ""}: ${parts.join("; ")}`
  })
}
