import type { LanguageModelShape } from "../llm/model.ts"
import { estimateTokens } from "./history.ts"

/**
 * Why a prompt cannot be sent: its estimated tokens with the system prompt and the tools' definitions leave no room
 * in the model's context window for an answer (a quarter of the window, at most 8,192 tokens, is kept for it).
 * The estimate (about four characters a token) runs low for code and most other scripts, so a refusal is certain.
 */
export const promptTooLong = (model: LanguageModelShape, system: string, toolsJson: string, texts: ReadonlyArray<string>): string | undefined => {
  const tokens = estimateTokens(system, texts.map((content) => ({ role: "user" as const, content })), toolsJson)
  const room = model.contextWindow - Math.min(8192, Math.floor(model.contextWindow / 4))
  if (tokens <= room) return undefined
  const chars = texts.reduce((n, t) => n + t.length, 0)
  return (
    `PROMPT_TOO_LONG: the prompt (${chars.toLocaleString("en-US")} characters, about ${tokens.toLocaleString("en-US")} tokens with the system prompt and tools) ` +
    `cannot fit the context window of ${model.id} (${model.contextWindow.toLocaleString("en-US")} tokens, ${room.toLocaleString("en-US")} of them for the prompt); nothing was sent. ` +
    `Next step: save the text to a file in the project and ask for it to be read in parts (read with offset/limit, grep), ` +
    `or use a model with a larger window (context_window in anvil.json says what the server allows).`
  )
}
