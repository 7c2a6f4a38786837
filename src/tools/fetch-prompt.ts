import type { ToolResult } from "../tool-framework/definition.ts"

/**
 * A page fetched with a prompt (Claude Code's WebFetch): the prompt is put above the page's text, for the model
 * that asked to answer from it. anvil runs no second model over the page: the page is what the answer must come
 * from, and the session's model reads it once, with nothing summarised away.
 */
export const withPrompt = (result: ToolResult, prompt: ShownPrompt | undefined): ToolResult => {
  if (prompt === undefined) return result
  const cut = result.text.indexOf("\n\n")
  const text = cut === -1 ? `${result.text}\n\n${prompt.note}` : `${result.text.slice(0, cut)}\n\n${prompt.note}${result.text.slice(cut)}`
  return { ...result, text, data: { ...result.data, prompt: prompt.text, ...(prompt.chars !== undefined ? { prompt_chars: prompt.chars } : {}) } }
}

/** The longest prompt shown whole: a question about a page, not a second page (the caller wrote it and has it). */
const MAX_PROMPT_CHARS = 2000

interface ShownPrompt {
  readonly text: string
  /** The whole prompt's length when it was cut. */
  readonly chars?: number
  readonly note: string
  readonly bytes: number
  readonly lines: number
}

export const shownPrompt = (prompt: string | undefined): ShownPrompt | undefined => {
  const trimmed = prompt?.trim() ?? ""
  if (trimmed === "") return undefined
  const long = trimmed.length > MAX_PROMPT_CHARS
  const text = long ? `${trimmed.slice(0, MAX_PROMPT_CHARS)}…` : trimmed
  const note = `Prompt: ${text}${long ? ` (its first ${MAX_PROMPT_CHARS} of ${trimmed.length} characters)` : ""}\n(answer it from the page's text below)`
  // The blank line that sets it apart is counted with it.
  return { text, ...(long ? { chars: trimmed.length } : {}), note, bytes: new TextEncoder().encode(note).length + 2, lines: note.split("\n").length + 1 }
}
