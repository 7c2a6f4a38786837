import type { ProcessTree } from "./process-tree.ts"

/**
 * Every process tree anvil started and has not ended yet, so that anvil ends
 * them whichever way it exits: `stopAllManaged` on an orderly exit or a signal
 * (the CLI awaits it), and a synchronous KILL from the `exit` event as the last
 * resort (a `process.exit` anywhere, an uncaught error).
 *
 * A tree stays here after its first process exited on its own: what it left
 * running in the background (`nohup server &`) carries its mark and is ended
 * with anvil. Only `ManagedProcess.stop` takes a tree out, after ending it,
 * and `ManagedProcess.release`, for a program known to leave nothing (git's
 * read commands) whose process group is already gone.
 */
const trees = new Map<string, ProcessTree>()
let guarded = false

/**
 * How trees are ended: process-tree.ts's functions, handed over with each tree (managed-process.ts imports them).
 * The registry does not import them itself, so that a command that starts no process never loads them, nor the
 * process table, cgroup and subreaper code behind them.
 */
export interface TreeEnding {
  readonly endTree: (tree: ProcessTree, graceMs: number) => Promise<void>
  readonly killTreesNow: (trees: Iterable<ProcessTree>) => void
}
let ending: TreeEnding | undefined

/** Adds a tree (by its mark), with how trees are ended. Installs the exit guard on first use. */
export const registerTree = (tree: ProcessTree, how: TreeEnding): void => {
  ending = how
  trees.set(tree.mark, tree)
  if (!guarded) {
    guarded = true
    process.on("exit", killAllManagedNow)
  }
}

/** Replaces the entry of `tree.mark` (e.g. without its group once the leader is gone). */
export const updateTree = (tree: ProcessTree): void => {
  if (trees.has(tree.mark)) trees.set(tree.mark, tree)
}

/** Forgets a tree that was ended. */
export const unregisterTree = (mark: string): void => {
  trees.delete(mark)
}

/** How many trees are registered (for tests and diagnostics). */
export const managedCount = (): number => trees.size

/**
 * Ends every registered tree (TERM, `graceMs`, KILL, wait) and forgets them.
 * Safe to call more than once and concurrently.
 */
export const stopAllManaged = async (graceMs = 1000): Promise<void> => {
  const all = [...trees.values()]
  if (all.length === 0 || ending === undefined) return
  const { endTree } = ending
  await Promise.all(
    all.map((tree) =>
      endTree(tree, graceMs).finally(() => {
        unregisterTree(tree.mark)
        tree.cage?.remove()
      }),
    ),
  )
}

/** KILLs every registered tree synchronously; for the process's `exit` event. */
export const killAllManagedNow = (): void => {
  if (trees.size === 0 || ending === undefined) return
  ending.killTreesNow(trees.values())
  trees.clear()
}
