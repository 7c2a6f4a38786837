import { shownValue } from "../protocol/shown-value.ts"
import type { ThinkingRequest } from "../llm/model.ts"

/**
 * Extended thinking as the Agent SDK asks for it: `thinking: {type: "enabled", budgetTokens}` arrives as
 * `--max-thinking-tokens N`, `{type: "adaptive"}` (or enabled without a budget) as `--thinking adaptive`,
 * `{type: "disabled"}` as `--thinking disabled`, its `display` as `--thinking-display`, and `maxThinkingTokens` /
 * `setMaxThinkingTokens(n, display)` as a set_max_thinking_tokens request. A budget of 0 is no thinking.
 */

type Display = NonNullable<ThinkingRequest["display"]>

/** A display anvil can give, or why not: `highlights` is the API's only for sessions Anthropic hosts, as Claude Code says. */
export const thinkingDisplay = (text: string, what: string): { readonly display?: Display; readonly error?: string } =>
  text === "summarized" || text === "omitted"
    ? { display: text }
    : text === "highlights"
      ? { error: `${what} 'highlights' is only for Claude Code sessions Anthropic hosts; use summarized or omitted` }
      : { error: `${what} is summarized or omitted, not ${shownValue(text)}` }

/** The thinking the command line asks for (undefined: none), or the reason a value is wrong. */
export const thinkingFlags = (
  budgetText: string | undefined,
  mode: string | undefined,
  displayText?: string,
): { readonly thinking?: ThinkingRequest; readonly error?: string } => {
  if (mode !== undefined && !["adaptive", "enabled", "disabled"].includes(mode)) return { error: `--thinking is adaptive, enabled or disabled; not ${shownValue(mode)}` }
  const shown = displayText === undefined ? {} : thinkingDisplay(displayText, "--thinking-display")
  if (shown.error !== undefined) return { error: shown.error }
  const display = shown.display !== undefined ? { display: shown.display } : {}
  if (mode === "disabled") return {}
  if (budgetText !== undefined) {
    const budget = Number(budgetText)
    if (!(Number.isInteger(budget) && budget >= 0)) return { error: `--max-thinking-tokens needs a whole number of tokens, not ${shownValue(budgetText)}` }
    return budget === 0 ? {} : { thinking: { budgetTokens: budget, ...display } }
  }
  return mode === undefined ? {} : { thinking: display }
}

/**
 * The thinking in force: a set_max_thinking_tokens budget when one was set (0: none), else the command line's;
 * null sets it back to the command line's. Its display: one set_max_thinking_tokens gave (null: the server's
 * default), else the command line's.
 */
export const thinkingInForce = (
  fromFlags: ThinkingRequest | undefined,
  setBudget: number | null | undefined,
  setDisplay?: Display | null,
): ThinkingRequest | undefined => {
  const thinking = setBudget === undefined || setBudget === null ? fromFlags : setBudget === 0 ? undefined : { budgetTokens: setBudget }
  if (thinking === undefined) return undefined
  const { display: _, ...rest } = thinking
  const display = setDisplay === undefined ? fromFlags?.display : setDisplay
  return display === undefined || display === null ? rest : { ...rest, display }
}
