import { groupAlive, markedProcesses, marksOf, processLiving, scanMarked, signalGroup, signalProcess } from "./process-table.ts"
import { adoptedChildren } from "./subreaper.ts"
import { removeCagesNow, type TreeCage } from "./tree-cgroup.ts"
import { ownMark } from "./watchdog.ts"

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
  /** The cgroup holding the tree (its process limit), where there is one: every member is part of it. */
  readonly cage?: TreeCage
  /**
   * When the tree started (clock ticks since boot), set while anvil adopts orphans (subreaper.ts): an
   * adopted process that carries none of this anvil's marks and started since then may be one of it.
   */
  readonly since?: number
}

/**
 * The processes anvil adopted that belong to `tree`: those carrying its mark,
 * and those that carry no mark of this anvil (cleared with `env -i`) and
 * started after it did. With trees running side by side such a process cannot
 * be told apart by more than that: it goes with the first of them to end.
 */
const adoptedOf = (tree: ProcessTree): Array<number> => {
  if (tree.since === undefined) return []
  const out: Array<number> = []
  for (const child of adoptedChildren()) {
    const marks = marksOf(child.pid) ?? []
    if (marks.includes(tree.mark) || (!marks.some(ownMark) && child.start >= tree.since)) out.push(child.pid)
  }
  return out
}

/** Every process of the tree found by something other than its group and mark: its cgroup, what anvil adopted of it. */
const strays = (tree: ProcessTree): Array<number> => [...(tree.cage?.members() ?? []), ...adoptedOf(tree)]

/** How often a dying tree is looked at. */
const POLL_MS = 20
/** After KILL, how long the tree gets to vanish (KILL is repeated meanwhile, for processes forked in between). */
const AFTER_KILL_MS = 1000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** How often, and how long at most, a process caught inside an exec is looked at again. */
const EXEC_POLL_MS = 2
const EXEC_WAIT_MS = 500
/** The same at anvil's very exit, where the wait blocks. */
const EXIT_EXEC_WAIT_MS = 100
/** A synchronous pause (Atomics.wait on a private buffer). */
const pause = new Int32Array(new SharedArrayBuffer(4))

/**
 * Whether anything of the tree lives. A process caught inside an exec cannot
 * show its mark yet (a `setsid sleep` left behind, turning from setsid into
 * sleep): it is looked at again until it can, rather than taken for gone.
 */
const treeAlive = async (tree: ProcessTree, signalled: ReadonlySet<number>): Promise<boolean> => {
  const deadline = performance.now() + EXEC_WAIT_MS
  for (;;) {
    if (tree.pgid !== undefined && groupAlive(tree.pgid)) return true
    // A process on its way out no longer shows its environment, but it is not gone until it is a zombie.
    for (const pid of signalled) if (processLiving(pid)) return true
    if (strays(tree).some(processLiving)) return true
    const scan = scanMarked([tree.mark])
    if (scan.found.length > 0) return true
    if (scan.unsure.length === 0 || performance.now() >= deadline) return false
    await sleep(EXEC_POLL_MS)
  }
}

const hit = (tree: ProcessTree, signal: NodeJS.Signals, signalled: Set<number>) => {
  if (tree.pgid !== undefined) signalGroup(tree.pgid, signal)
  for (const pid of [...markedProcesses([tree.mark]), ...strays(tree)]) {
    signalProcess(pid, signal)
    signalled.add(pid)
  }
}

/** TERM (and CONT) to the processes of the tree that have not had it yet: orphans handed to anvil as their parent ends. */
const termLate = (tree: ProcessTree, signalled: Set<number>, termed: Set<number>) => {
  for (const pid of strays(tree)) {
    if (termed.has(pid)) continue
    signalProcess(pid, "SIGTERM")
    signalProcess(pid, "SIGCONT")
    termed.add(pid)
    signalled.add(pid)
  }
}

const waitGone = async (tree: ProcessTree, signalled: Set<number>, ms: number, meanwhile?: () => void): Promise<boolean> => {
  const deadline = performance.now() + ms
  for (;;) {
    if (!(await treeAlive(tree, signalled))) return true
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
  const signalled = new Set<number>()
  if (!(await treeAlive(tree, signalled))) return
  hit(tree, "SIGTERM", signalled)
  const termed = new Set(signalled)
  hit(tree, "SIGCONT", signalled)
  // A process orphaned as its parent ends (handed to anvil, see subreaper.ts) gets its TERM when it turns up.
  if (graceMs > 0 && (await waitGone(tree, signalled, graceMs, tree.since === undefined ? undefined : () => termLate(tree, signalled, termed)))) return
  hit(tree, "SIGKILL", signalled)
  await waitGone(tree, signalled, AFTER_KILL_MS, () => hit(tree, "SIGKILL", signalled))
}

/**
 * KILLs every process of the given trees at once, synchronously: for the last
 * moment of an exiting anvil, when nothing can be awaited any more.
 */
export const killTreesNow = (given: Iterable<ProcessTree>): void => {
  const trees = [...given]
  const marks: Array<string> = []
  for (const tree of trees) {
    if (tree.pgid !== undefined) signalGroup(tree.pgid, "SIGKILL")
    for (const pid of tree.cage?.members() ?? []) signalProcess(pid, "SIGKILL")
    marks.push(tree.mark)
  }
  // Whatever anvil adopted is one of its trees' (the runtime's own children are not listed): anvil is going.
  for (const child of adoptedChildren()) signalProcess(child.pid, "SIGKILL")
  for (const tree of trees) tree.cage?.remove()
  removeCagesNow()
  if (marks.length === 0) return
  // A process caught inside an exec shows its mark a moment later: look again, briefly (nothing can be awaited here).
  const deadline = performance.now() + EXIT_EXEC_WAIT_MS
  for (;;) {
    const scan = scanMarked(marks)
    for (const pid of scan.found) signalProcess(pid, "SIGKILL")
    if (scan.unsure.length === 0 || performance.now() >= deadline) return
    Atomics.wait(pause, 0, 0, EXEC_POLL_MS)
  }
}
