import type { Usage } from "../llm/model.ts"
import { costOf, priceOf } from "../llm/pricing.ts"
import { combineUsage, noUsage } from "../llm/usage.ts"

/**
 * What a session has spent, per model, since it opened (Claude Code's `total_cost_usd` and `modelUsage`: cumulative
 * across the turns of one session, a resumed one starting from zero), and whether it passed `--max-budget-usd`.
 * Every request counts: the agent's, its subagents', compaction's.
 */
export interface CostMeter {
  /** Adds one response's tokens, priced as `modelId`'s. */
  readonly add: (modelId: string, usage: Usage) => void
  /** Dollars spent so far (models of unknown price count nothing). */
  readonly total: () => number
  /** Tokens and dollars per model, in the order they were first used. */
  readonly byModel: () => ReadonlyArray<{ readonly model: string; readonly usage: Usage; readonly costUsd: number }>
  /** Why the session must stop: the spend reached the budget; undefined while it has not (or without a budget). */
  readonly overBudget: () => string | undefined
}

export const makeCostMeter = (options: {
  readonly budgetUsd?: number | undefined
  /** Told once per model whose price is unknown, when a budget is set: its requests cannot be counted against it. */
  readonly onUnknownPrice?: (message: string) => void
}): CostMeter => {
  const models = new Map<string, { usage: Usage; costUsd: number }>()
  const told = new Set<string>()
  const budget = options.budgetUsd
  const meter: CostMeter = {
    add: (modelId, usage) => {
      const row = models.get(modelId) ?? { usage: noUsage(), costUsd: 0 }
      models.set(modelId, row)
      row.usage = combineUsage(row.usage, usage)
      const price = priceOf(modelId)
      if (price) row.costUsd += costOf(price, usage)
      else if (budget !== undefined && !told.has(modelId)) {
        told.add(modelId)
        options.onUnknownPrice?.(
          `the price of ${modelId} is not known to anvil, so its requests cost $0 against --max-budget-usd ${budget} and that budget will not stop them; ` +
            `the run stops only at its other limits (--max-turns). Use a model anvil prices (Claude, GPT-4.1, GPT-4o) for the budget to count.`,
        )
      }
    },
    total: () => [...models.values()].reduce((sum, r) => sum + r.costUsd, 0),
    byModel: () => [...models].map(([model, r]) => ({ model, usage: r.usage, costUsd: r.costUsd })),
    overBudget: () => {
      if (budget === undefined) return undefined
      const spent = meter.total()
      return spent >= budget ? `Reached maximum budget ($${budget}): this session has spent $${spent.toFixed(4)}. Raise --max-budget-usd (maxBudgetUsd) to go on.` : undefined
    },
  }
  return meter
}
