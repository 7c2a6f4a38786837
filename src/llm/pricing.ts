import type { Usage } from "./model.ts"

/**
 * What a model's tokens cost, in US dollars per million (the providers' list prices), for `total_cost_usd` and
 * `--max-budget-usd`. A model is found by its name whatever provider serves it (`anthropic/claude-sonnet-4-5`,
 * `openrouter/anthropic/claude-sonnet-4-5`), a dated name (`claude-3-5-haiku-20241022`) by its family. Models not
 * listed (local servers, new names) have no known price: the caller says so rather than counting them as free.
 */
export interface Price {
  readonly input: number
  readonly output: number
}

/** Most specific first: the first pattern that matches the model's name gives its price. */
const TABLE: ReadonlyArray<readonly [RegExp, Price]> = [
  [/claude-opus-4-[5-9]|claude-opus-[5-9]/, { input: 5, output: 25 }],
  [/claude-(3-)?opus|claude-opus-4/, { input: 15, output: 75 }],
  [/claude-(3-[57]-)?sonnet|claude-sonnet/, { input: 3, output: 15 }],
  [/claude-haiku-4|claude-haiku-[5-9]/, { input: 1, output: 5 }],
  [/claude-3-5-haiku/, { input: 0.8, output: 4 }],
  [/claude-3-haiku/, { input: 0.25, output: 1.25 }],
  [/gpt-4\.1-nano/, { input: 0.1, output: 0.4 }],
  [/gpt-4\.1-mini/, { input: 0.4, output: 1.6 }],
  [/gpt-4\.1/, { input: 2, output: 8 }],
  [/gpt-4o-mini/, { input: 0.15, output: 0.6 }],
  [/gpt-4o/, { input: 2.5, output: 10 }],
]

/** The price of `modelId` ("provider/model", or a bare name), or undefined when anvil does not know it. */
export const priceOf = (modelId: string): Price | undefined => {
  const name = modelId.toLowerCase().split("/").at(-1) ?? ""
  return TABLE.find(([pattern]) => pattern.test(name))?.[1]
}

/** The dollars `usage` costs at `price`. */
export const costOf = (price: Price, usage: Usage): number => (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
