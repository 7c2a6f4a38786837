/**
 * A response's tokens. `inputTokens` is the whole prompt, cached or not (what fills the context window); the cache
 * counts are parts of it, priced apart (src/llm/pricing.ts): read from the provider's prompt cache (Anthropic's
 * `cache_read_input_tokens`, OpenAI's `prompt_tokens_details.cached_tokens`) and written to it (Anthropic's
 * `cache_creation_input_tokens`, of which `cacheWrite1hTokens` were kept for an hour). Absent counts are 0.
 */
export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly cacheWrite1hTokens?: number
}

const CACHE_KEYS = ["cacheReadTokens", "cacheWriteTokens", "cacheWrite1hTokens"] as const

/** No tokens yet. */
export const noUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 })

/** `a` and `b` count by count through `pick` (a sum, or the largest); a cache count both lack stays absent. */
export const combineUsage = (a: Usage, b: Usage, pick: (x: number, y: number) => number = (x, y) => x + y): Usage => {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: pick(a.inputTokens, b.inputTokens),
    outputTokens: pick(a.outputTokens, b.outputTokens),
  }
  for (const key of CACHE_KEYS) if (a[key] !== undefined || b[key] !== undefined) out[key] = pick(a[key] ?? 0, b[key] ?? 0)
  return out
}

/** The sum of `usages`. */
export const sumUsage = (...usages: ReadonlyArray<Usage>): Usage => usages.reduce((total, u) => combineUsage(total, u), noUsage())

/** The prompt tokens neither read from nor written to the cache (Anthropic's `input_tokens`). */
export const uncachedInput = (u: Usage): number => Math.max(0, u.inputTokens - (u.cacheReadTokens ?? 0) - (u.cacheWriteTokens ?? 0))

/**
 * Anthropic's usage object (Claude Code's `usage` on assistant and result messages): `input_tokens` is the uncached
 * part, so a program adding the three input counts gets the whole prompt once.
 */
export const anthropicUsage = (u: Usage) => ({
  input_tokens: uncachedInput(u),
  output_tokens: u.outputTokens,
  cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
  cache_read_input_tokens: u.cacheReadTokens ?? 0,
})
