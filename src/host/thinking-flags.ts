import { shownValue } from "../protocol/shown-value.ts"
import type { ThinkingRequest } from "../llm/model.ts"

/**
 * Extended thinking as the Agent SDK asks for it: `thinking: {type: "enabled", budgetTokens}` arrives as
 * `--max-thinking-tokens N`, `{type: "adaptive"}` (or enabled without a budget) as `--thinking adaptive`,
 * `{type: "disabled"}` as `--thinking disabled`, and `maxThinkingTokens` as a set_max_thinking_tokens request.
 * A budget of 0 is no thinking.
 */

/** The thinking the command line asks for (undefined: none), or the reason a value is wrong. */
export const thinkingFlags = (budgetText: string | undefined, mode: string | undefined): { readonly thinking?: ThinkingRequest; readonly error?: string } => {
  if (mode !== undefined && !["adaptive", "enabled", "disabled"].includes(mode)) return { error: `--thinking is adaptive, enabled or disabled; not ${shownValue(mode)}` }
  if (mode === "disabled") return {}
  if (budgetText !== undefined) {
    const budget = Number(budgetText)
    if (!(Number.isInteger(budget) && budget >= 0)) return { error: `--max-thinking-tokens needs a whole number of tokens, not ${shownValue(budgetText)}` }
    return budget === 0 ? {} : { thinking: { budgetTokens: budget } }
  }
  return mode === undefined ? {} : { thinking: {} }
}

/**
 * The thinking in force: a set_max_thinking_tokens budget when one was set (0: none), else the command line's;
 * null sets it back to the command line's.
 */
export const thinkingInForce = (fromFlags: ThinkingRequest | undefined, setBudget: number | null | undefined): ThinkingRequest | undefined =>
  setBudget === undefined || setBudget === null ? fromFlags : setBudget === 0 ? undefined : { budgetTokens: setBudget }
