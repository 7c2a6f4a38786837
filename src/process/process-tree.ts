import { groupAlive, markedProcesses, signalGroup, signalProcess } from "./process-table.ts"

/**
 * A process tree anvil started: the group its first process leads, and the
 * mark every process of it carries in its environment. Ending the tree means
 * ending both — the group catches children that cleared their environment,
 * the mark catches children that left the group (`setsid`, `nohup` + `&`,
 * daemons).
 */
export interface ProcessTree {
  /** The process group; undefined when it is not to be signalled (its leader is long gone and the id may be reused). */
  readonly pgid: number | undefined
  readonly mark: string
}

/** How often a dying tree is looked at. */
const POLL_MS = 20
/** After KILL, how long the tree gets to vanish (KILL is repeated meanwhile, for processes forked in between). */
const AFTER_KILL_MS = 1000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const treeAlive = (tree: ProcessTree) =>
  (tree.pgid !== undefined && groupAlive(tree.pgid)) || markedProcesses([tree.mark]).length > 0

const hit = (tree: ProcessTree, signal: NodeJS.Signals) => {
  if (tree.pgid !== undefined) signalGroup(tree.pgid, signal)
  for (const pid of markedProcesses([tree.mark])) signalProcess(pid, signal)
}

const waitGone = async (tree: ProcessTree, ms: number, meanwhile?: () => void): Promise<boolean> => {
  const deadline = performance.now() + ms
  for (;;) {
    if (!treeAlive(tree)) return true
    if (performance.now() >= deadline) return false
    meanwhile?.()
    await sleep(POLL_MS)
  }
}

/**
 * Ends a process tree: TERM (and CONT, so stopped processes can act on it) to
 * the group and to every marked process, up to `graceMs` for them to go, then
 * KILL until none is left. Resolves once nothing of the tree lives (zombies
 * waiting for a parent to reap them do not count), or after KILL had its time.
 */
export const endTree = async (tree: ProcessTree, graceMs: number): Promise<void> => {
  if (!treeAlive(tree)) return
  hit(tree, "SIGTERM")
  hit(tree, "SIGCONT")
  if (graceMs > 0 && (await waitGone(tree, graceMs))) return
  hit(tree, "SIGKILL")
  await waitGone(tree, AFTER_KILL_MS, () => hit(tree, "SIGKILL"))
}

/**
 * KILLs every process of the given trees at once, synchronously: for the last
 * moment of an exiting anvil, when nothing can be awaited any more.
 */
export const killTreesNow = (trees: Iterable<ProcessTree>): void => {
  const marks: Array<string> = []
  for (const tree of trees) {
    if (tree.pgid !== undefined) signalGroup(tree.pgid, "SIGKILL")
    marks.push(tree.mark)
  }
  if (marks.length === 0) return
  for (const pid of markedProcesses(marks)) signalProcess(pid, "SIGKILL")
}
