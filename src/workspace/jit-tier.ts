import type * as Jsc from "bun:jsc"

/**
 * Keeps the given functions out of JavaScriptCore's top tier (FTL). A walk's
 * innermost functions run tens of thousands of times in a process that then
 * exits: the top tier's compiler spends more CPU on them than its faster code
 * gives back (on a 57,000-file glob about 30–40 ms of a 200 ms call, on a
 * machine whose cores the compiler thread competes for). They still reach the
 * tier below (DFG), which compiles in a fraction of that time.
 */
export const keepBelowTopTier = (...functions: ReadonlyArray<(...args: never) => unknown>): void => {
  const noFTL = load()?.noFTL
  // A Bun without the hint (or another runtime) runs them as it likes.
  if (typeof noFTL !== "function") return
  for (const f of functions) noFTL(f as (...args: Array<unknown>) => unknown)
}

let jscModule: typeof Jsc | undefined | null = null

const load = (): typeof Jsc | undefined => {
  if (jscModule === null) {
    try {
      jscModule = process.getBuiltinModule("bun:jsc") as typeof Jsc | undefined
    } catch {
      jscModule = undefined
    }
  }
  return jscModule ?? undefined
}
