import { realpathSync, statSync } from "node:fs"
import { resolve } from "node:path"

/**
 * Claude Code's `--add-dir`, `--fallback-model` and `--max-budget-usd`, as the Agent SDK passes them
 * (`additionalDirectories`, `fallbackModel`, `maxBudgetUsd`): read from the command line here, acted on by the
 * session (AgentSessionOptions addDirs, fallbackModels, maxBudgetUsd).
 */
export interface LimitFlags {
  /** `--add-dir` values as given (resolved against the working folder by {@link addDirsOf}). */
  readonly addDirs: ReadonlyArray<string>
  /** `--fallback-model`: a comma-separated list, tried in order. */
  readonly fallbackModels: ReadonlyArray<string>
  readonly maxBudgetUsd?: number
  readonly errors: ReadonlyArray<string>
}

export const limitFlags = (values: (flag: string) => ReadonlyArray<string>, model: string | undefined): LimitFlags => {
  const errors: Array<string> = []
  const fallbackModels = values("--fallback-model").flatMap((v) => v.split(",")).map((m) => m.trim()).filter((m) => m !== "")
  // As Claude Code refuses it: falling back to the model that failed would only fail again.
  if (model !== undefined && fallbackModels.includes(model)) {
    errors.push(`--fallback-model cannot be the same as the main model (${model}); name a different model`)
  }
  const budgetText = values("--max-budget-usd").at(-1)
  const budget = budgetText === undefined ? undefined : Number(budgetText)
  if (budgetText !== undefined && !(budgetText.trim() !== "" && Number.isFinite(budget) && budget! > 0)) {
    errors.push(`--max-budget-usd needs an amount of US dollars above 0 (like 0.50), not '${budgetText}'`)
  }
  return {
    // One folder a flag, as the SDK passes them: a path may hold commas and spaces.
    addDirs: values("--add-dir").filter((d) => d.trim() !== ""),
    fallbackModels: [...new Set(fallbackModels)],
    ...(budget !== undefined && errors.length === 0 ? { maxBudgetUsd: budget } : {}),
    errors,
  }
}

/**
 * The `--add-dir` folders as absolute real paths (relative ones from `cwd`). As Claude Code does, a path that does not
 * exist or is not a folder is skipped with a warning, not fatal: the session still runs, without it.
 */
export const addDirsOf = (dirs: ReadonlyArray<string>, cwd: string, onProblem: (message: string) => void): Array<string> =>
  dirs.flatMap((dir) => {
    const absolute = resolve(cwd, dir)
    try {
      if (statSync(absolute).isDirectory()) return [realpathSync(absolute)]
      onProblem(`--add-dir ${dir} is not a folder; skipped`)
    } catch (e) {
      onProblem(`--add-dir ${dir} cannot be used (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); skipped`)
    }
    return []
  })

/** The session options the three flags become; `onProblem` hears of a skipped folder and of a model the budget cannot price. */
export const sessionLimits = (flags: { readonly limits: Omit<LimitFlags, "errors"> }, cwd: string, onProblem: (message: string) => void) => {
  const { addDirs, fallbackModels, maxBudgetUsd } = flags.limits
  return {
    ...(addDirs.length > 0 ? { addDirs: addDirsOf(addDirs, cwd, onProblem) } : {}),
    ...(fallbackModels.length > 0 ? { fallbackModels } : {}),
    ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
    onNotice: onProblem,
  }
}
