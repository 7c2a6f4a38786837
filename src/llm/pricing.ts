import type { Usage } from "./model.ts"
import { uncachedInput } from "./usage.ts"

/**
 * What a model's tokens cost, in US dollars per million (the providers' list prices), for `total_cost_usd` and
 * `--max-budget-usd`. A model is found by its name whatever provider serves it (`anthropic/claude-sonnet-4-5`,
 * `openrouter/anthropic/claude-sonnet-4-5`), a dated name (`claude-3-5-haiku-20241022`) by its family. Models not
 * listed (local servers, new names) have no known price: the caller says so rather than counting them as free.
 */
export interface Price {
  readonly input: number
  readonly output: number
  /** A prompt token read from the provider's cache. */
  readonly cacheRead: number
  /** A prompt token written to the cache for five minutes (Anthropic's default), and for an hour. */
  readonly cacheWrite: number
  readonly cacheWrite1h: number
}

/** Anthropic's published prompt-caching multipliers of the input price: read 0.1×, a 5-minute write 1.25×, a 1-hour write 2×. */
const claude = (input: number, output: number): Price => ({ input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25, cacheWrite1h: input * 2 })
/** OpenAI caches on its own and charges nothing to write; a cached token costs the listed "cached input" price. */
const openai = (input: number, cachedInput: number, output: number): Price => ({ input, output, cacheRead: cachedInput, cacheWrite: input, cacheWrite1h: input })

/** Most specific first: the first pattern that matches the model's name gives its price. */
const TABLE: ReadonlyArray<readonly [RegExp, Price]> = [
  [/claude-opus-4-[5-9]|claude-opus-[5-9]/, claude(5, 25)],
  [/claude-(3-)?opus|claude-opus-4/, claude(15, 75)],
  [/claude-(3-[57]-)?sonnet|claude-sonnet/, claude(3, 15)],
  [/claude-haiku-4|claude-haiku-[5-9]/, claude(1, 5)],
  [/claude-3-5-haiku/, claude(0.8, 4)],
  [/claude-3-haiku/, claude(0.25, 1.25)],
  [/gpt-4\.1-nano/, openai(0.1, 0.025, 0.4)],
  [/gpt-4\.1-mini/, openai(0.4, 0.1, 1.6)],
  [/gpt-4\.1/, openai(2, 0.5, 8)],
  [/gpt-4o-mini/, openai(0.15, 0.075, 0.6)],
  [/gpt-4o/, openai(2.5, 1.25, 10)],
]

/** The price of `modelId` ("provider/model", or a bare name), or undefined when anvil does not know it. */
export const priceOf = (modelId: string): Price | undefined => {
  const name = modelId.toLowerCase().split("/").at(-1) ?? ""
  return TABLE.find(([pattern]) => pattern.test(name))?.[1]
}

/** The dollars `usage` costs at `price`: each part of the prompt at its own rate. */
export const costOf = (price: Price, usage: Usage): number => {
  const write1h = usage.cacheWrite1hTokens ?? 0
  const write5m = Math.max(0, (usage.cacheWriteTokens ?? 0) - write1h)
  const dollarsPerMillion =
    uncachedInput(usage) * price.input +
    (usage.cacheReadTokens ?? 0) * price.cacheRead +
    write5m * price.cacheWrite +
    write1h * price.cacheWrite1h +
    usage.outputTokens * price.output
  return dollarsPerMillion / 1_000_000
}
