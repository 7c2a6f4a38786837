import { Data, Effect, type Scope } from "effect"
import { accessSync, constants, statSync } from "node:fs"
import { isAbsolute, resolve as resolvePath } from "node:path"
import type { Readable, Writable } from "node:stream"
import { registerTree, unregisterTree, updateTree } from "./managed-registry.ts"
import { groupAlive, holdsFile, MARK_VAR, markValue, treeHoldsFile, type FileIdentity } from "./process-table.ts"
import { endTree, killTreesNow, type ProcessTree } from "./process-tree.ts"
import { adoptedChildren, adoptOrphans, forgetChild, noteChild, startTicks, ticksNow } from "./subreaper.ts"
import { startParked } from "./parked-cage.ts"
import { userNprocPrefix } from "./user-nproc.ts"
import { makeTreeCage } from "./tree-cgroup.ts"
import { ensureWatchdog, newMark } from "./watchdog.ts"

/**
 * The one way anvil starts a process: bash commands, the agent's verify
 * command, ripgrep, MCP and LSP servers, plugin command hooks. Every process
 * started here
 *
 * - leads its own process group and session (setsid), so it cannot read the
 *   user's terminal and a signal to the group reaches what it started;
 * - carries a fresh mark in its environment (`ANVIL_PROC_MARK`, inherited by
 *   everything it starts), so that children which left the group — `setsid`,
 *   `nohup cmd &`, daemons — are still found (through /proc);
 * - is registered until it is stopped, so anvil ends it (and everything marked
 *   with it) on every way out: `stop()`, a timeout, a cancelled call, SIGINT,
 *   SIGTERM, SIGHUP, a normal exit, `process.exit`.
 *
 * Ending a tree is TERM to the group and to every marked process, a grace
 * period, then KILL, and waiting until none is left.
 */

/** A command line as it is handed to the operating system. */
export interface SpawnCommand {
  /** The program (a path, or a name looked up on `env.PATH`) and its arguments. */
  readonly argv: ReadonlyArray<string>
  /** Absolute working directory. */
  readonly cwd: string
  /** The whole environment of the process (the mark already in it). */
  readonly env: Readonly<Record<string, string>>
  /**
   * Set by a wrap that holds every process the command starts inside its own
   * PID namespace, killed with anvil (bubblewrap's --die-with-parent): nothing
   * of it outlives its first process or anvil, so no watchdog is started for
   * it and, once it exited, /proc is not searched for what is left of it.
   */
  readonly contained?: boolean
  /**
   * The most processes and threads the tree may have at once, held by a cgroup
   * where anvil can make one (tree-cgroup.ts, parked-cage.ts), else, outside
   * the sandbox, by RLIMIT_NPROC over the user's count (user-nproc.ts); unset
   * for no limit of anvil's.
   */
  readonly maxProcesses?: number
}

/**
 * Rewrites a command just before it is started — the hook for the command
 * sandbox (`bwrap … -- argv`). It gets the command with the program already
 * resolved to a path and the mark already in `env`; it must keep
 * `ANVIL_PROC_MARK` in the environment of what finally runs, or the processes
 * that leave the group cannot be found.
 */
export type SpawnWrap = (command: SpawnCommand) => SpawnCommand

/** What to start and how. */
export interface ManagedSpawnOptions {
  /** Program and arguments; the program is a path or a name looked up on `env.PATH` (the child's PATH). */
  readonly argv: ReadonlyArray<string>
  /** Absolute working directory. */
  readonly cwd: string
  /** `cwd` as an opened, checked folder (`/proc/self/fd/N`): where the process really starts when the wrap keeps `cwd`. */
  readonly cwdHandle?: string
  /** The child's whole environment (nothing is inherited implicitly). The mark is added. */
  readonly env: Readonly<Record<string, string>>
  /** "ignore" (default: /dev/null, a command never waits for input) or "pipe" (a server's request channel). */
  readonly stdin?: "ignore" | "pipe"
  /** Default "pipe"; a number is an open descriptor (a file) the process writes to directly. */
  readonly stdout?: "pipe" | "ignore" | "inherit" | number
  /** Default "pipe"; a number as for stdout. */
  readonly stderr?: "pipe" | "ignore" | "inherit" | number
  /** Between TERM and KILL when the tree is ended; default 2000 ms. */
  readonly killGraceMs?: number
  /** Names the process in messages ("mcp server github", "bash"). */
  readonly label?: string
  /** See `SpawnWrap`. */
  readonly wrap?: SpawnWrap
  /**
   * The program starts nothing meant to outlive it (git's own commands): no watchdog is started for it, as it
   * would cost each one-tool call a shell start for nothing.
   */
  readonly leavesNothing?: boolean
}

/** How the first process of a tree ended. */
export interface ManagedExit {
  /** The exit status; null when the process died of a signal. */
  readonly exitCode: number | null
  /** The signal that ended it ("SIGTERM"), else null. */
  readonly signal: string | null
}

/** A started process tree. */
export interface ManagedProcess {
  /** The first process's id; also the process group's id. */
  readonly pid: number
  /** The mark its processes carry in `ANVIL_PROC_MARK`. */
  readonly mark: string
  readonly label: string
  /** Started by a wrap that holds its whole tree (see `SpawnCommand.contained`). */
  readonly contained: boolean
  /** Held by a cgroup (see `SpawnCommand.maxProcesses`): once it is empty, nothing of the tree is left anywhere. */
  readonly caged: boolean
  /** The child's stdin when started with `stdin: "pipe"`. */
  readonly stdin: Bun.FileSink | undefined
  /** The child's stdout when piped. */
  readonly stdout: ReadableStream<Uint8Array> | undefined
  /** The child's stderr when piped. */
  readonly stderr: ReadableStream<Uint8Array> | undefined
  /** Settles when the first process exited (its children may live on until `stop`). Never rejects. */
  readonly exited: Promise<ManagedExit>
  /** The first process's exit, once `exited` settled. */
  readonly exit: ManagedExit | undefined
  /**
   * Ends the whole tree — TERM to the group and every marked process, `graceMs`
   * (default: the spawn option), KILL — waits until none is left and forgets it.
   * Idempotent; concurrent calls share one ending.
   */
  readonly stop: (graceMs?: number) => Promise<void>
  /**
   * For a program known to start nothing that outlives it (git's own
   * commands), or a tree held by a cgroup: once its first process exited and
   * no process of its group (of its cgroup) is left, forgets the tree without the /proc scan for marked processes that
   * `stop` (or anvil's exit) would make. Returns whether it was forgotten;
   * otherwise the tree stays registered and is ended as usual.
   */
  readonly release: () => boolean
  /**
   * Once the first process exited: whether a living process of the tree still
   * has one of `files` open (an output file a background process writes to).
   * Held by a cgroup, its members are the tree; where anvil adopts orphans and
   * has adopted none, nothing of the tree is left (every process that outlived
   * its parent is handed to anvil); otherwise the adopted processes, and the
   * group and the marked processes through all of /proc. A contained tree holds
   * nothing (it ended with its first process).
   */
  readonly holdsFile: (files: ReadonlyArray<FileIdentity>) => boolean
  /**
   * Node stream views of the pipes (for libraries such as vscode-jsonrpc that
   * take Node streams). Call at most once; the web streams above are then owned
   * by these views.
   */
  readonly nodeStreams: () => { readonly stdin?: Writable; readonly stdout?: Readable; readonly stderr?: Readable }
}

/** The process could not be started (no such program, not executable, bad working directory). */
export class ProcessSpawnError extends Data.TaggedError("ProcessSpawnError")<{
  /** errno code: ENOENT, EACCES, ENOTDIR, … */
  readonly code: string | undefined
  readonly message: string
}> {}

/** PATH used when the environment has none (what sh itself falls back to). */
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
const DEFAULT_GRACE_MS = 2000

/** Finds `file` on the environment's PATH (the child's PATH, not anvil's). */
export const locateProgram = (file: string, env: Readonly<Record<string, string>>): string | undefined => {
  if (file.includes("/")) return file
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(":")) {
    const candidate = `${dir === "" ? "." : dir}/${file}`
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const isFolder = (dir: string): boolean => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true

/** Throws the ProcessSpawnError a spawn of `file` would meet: ENOENT when nothing is there, EACCES when it cannot run. */
const checkRunnable = (file: string, shown: string): void => {
  let isDir = false
  try {
    accessSync(file, constants.X_OK)
    isDir = statSync(file).isDirectory()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") throw new ProcessSpawnError({ code: "ENOENT", message: `command not found: ${shown}` })
    throw new ProcessSpawnError({ code: "EACCES", message: `${shown} is not executable` })
  }
  if (isDir) throw new ProcessSpawnError({ code: "EACCES", message: `${shown} is a directory` })
}

const signalName = (s: number | string | null): string | null => (s === null ? null : typeof s === "string" ? s : `signal ${s}`)

/** node:stream, loaded by the few callers that want Node streams (MCP, LSP), not at every start-up. */
const nodeStream = () => require("node:stream") as typeof import("node:stream")

/** A Node Writable over Bun's FileSink, honouring its backpressure. */
const writableOf = (sink: Bun.FileSink): Writable =>
  new (nodeStream().Writable)({
    write(chunk: Uint8Array, _encoding, callback) {
      try {
        sink.write(chunk)
        Promise.resolve(sink.flush()).then(
          () => callback(),
          (e: unknown) => callback(e as Error),
        )
      } catch (e) {
        callback(e as Error)
      }
    },
    final(callback) {
      try {
        Promise.resolve(sink.end()).then(
          () => callback(),
          () => callback(),
        )
      } catch {
        callback()
      }
    },
  })

/**
 * Starts a managed process tree (see the top of this file). Throws
 * `ProcessSpawnError` when it cannot start. The caller owns the result and
 * should `stop()` it when done with it; anvil's exit stops it otherwise.
 */
export const startManaged = (options: ManagedSpawnOptions): ManagedProcess => {
  const [program, ...args] = options.argv
  if (program === undefined || program === "") throw new ProcessSpawnError({ code: "EINVAL", message: "no program to run" })
  const resolved = locateProgram(program, options.env)
  if (resolved === undefined) throw new ProcessSpawnError({ code: "ENOENT", message: `command not found: ${program}` })
  // A path is checked here, before any wrapper: inside the command sandbox bubblewrap would start and only then
  // fail to run it, which reads as the command's own exit code 1 instead of "no such program".
  if (program.includes("/")) checkRunnable(isAbsolute(program) ? program : resolvePath(options.cwd, program), program)

  const mark = newMark()
  const env = { ...options.env, [MARK_VAR]: markValue(options.env[MARK_VAR], mark) }
  let command: SpawnCommand = { argv: [resolved, ...args], cwd: options.cwd, env }
  if (options.wrap) {
    command = options.wrap(command)
    const wrapper = locateProgram(command.argv[0] ?? "", command.env)
    if (wrapper === undefined) throw new ProcessSpawnError({ code: "ENOENT", message: `command not found: ${command.argv[0]}` })
    command = { ...command, argv: [wrapper, ...command.argv.slice(1)] }
  }
  const max = command.maxProcesses ?? 0
  const cwd = options.cwdHandle !== undefined && command.cwd === options.cwd ? options.cwdHandle : command.cwd
  // Outside a PID namespace, what the tree daemonises (env -i setsid …) is handed to anvil when its parent dies.
  const adopting = options.leavesNothing !== true && command.contained !== true && adoptOrphans()
  // A command writing to files is started by a process already in its cage where one is ready (parked-cage.ts);
  // the process then started here is that one (it execs the command), and a bad folder is reported as before.
  const parked =
    max > 0 && (options.stdin ?? "ignore") === "ignore" && typeof options.stdout === "number" && typeof options.stderr === "number" && isFolder(cwd)
      ? startParked({ argv: command.argv, cwd, env: command.env, stdout: options.stdout, stderr: options.stderr, max })
      : undefined
  const cage = parked?.cage ?? (max > 0 ? makeTreeCage(max) : undefined)
  if (cage && !parked) command = { ...command, argv: cage.enter(command.argv) }
  // No cgroup here: outside the sandbox the limit is RLIMIT_NPROC over the user's count (user-nproc.ts); a confined
  // command has its own in the sandbox's user namespace.
  const nproc = max > 0 && !cage && command.contained !== true ? userNprocPrefix(max) : undefined
  if (nproc) command = { ...command, argv: [...nproc, ...command.argv] }

  let child: Bun.Subprocess
  try {
    child =
      parked?.proc ??
      Bun.spawn([...command.argv], {
        cwd,
        env: { ...command.env },
        detached: true,
        stdin: options.stdin ?? "ignore",
        stdout: options.stdout ?? "pipe",
        stderr: options.stderr ?? "pipe",
      })
  } catch (e) {
    cage?.remove()
    const err = e as NodeJS.ErrnoException
    throw new ProcessSpawnError({ code: err.code, message: err.message })
  }

  const pid = child.pid
  noteChild(pid)
  // The parked process started before the command: what the tree leaves starts from now on.
  const since = adopting ? (parked ? ticksNow() : startTicks(pid)) : undefined
  const tree: ProcessTree = { pgid: pid, mark, ...(cage ? { cage } : {}), ...(since !== undefined ? { since } : {}) }
  registerTree(tree, { endTree, killTreesNow })
  // After the child started, so that its start does not wait for it: the watchdog ends the tree if anvil is KILLed.
  if (!options.leavesNothing && command.contained !== true) ensureWatchdog()
  const graceDefault = options.killGraceMs ?? DEFAULT_GRACE_MS
  let exit: ManagedExit | undefined
  let stopping: Promise<void> | undefined
  const exited: Promise<ManagedExit> = child.exited.then(
    () => {
      exit = { exitCode: child.exitCode, signal: signalName(child.signalCode) }
      return exit
    },
    () => (exit = { exitCode: null, signal: null }),
  )
  // Once the leader is gone its group id may in time be reused; its marked children are still found.
  void exited.then(() => {
    forgetChild(pid)
    updateTree({ ...tree, pgid: undefined })
  })
  const forget = () => {
    unregisterTree(mark)
    cage?.remove()
  }

  const stdin = (options.stdin === "pipe" ? child.stdin : undefined) as Bun.FileSink | undefined
  const stdout = (options.stdout ?? "pipe") === "pipe" ? (child.stdout as ReadableStream<Uint8Array>) : undefined
  const stderr = (options.stderr ?? "pipe") === "pipe" ? (child.stderr as ReadableStream<Uint8Array>) : undefined

  return {
    pid,
    mark,
    label: options.label ?? program,
    contained: command.contained === true,
    caged: cage !== undefined,
    stdin,
    stdout,
    stderr,
    exited,
    get exit() {
      return exit
    },
    stop: (graceMs) =>
      (stopping ??= endTree({ ...tree, pgid: exit === undefined ? pid : undefined }, graceMs ?? graceDefault).finally(forget)),
    release: () => {
      // A contained tree's group may still show its init as a zombie for a moment: nothing of it lives.
      const left = command.contained === true ? false : cage ? cage.members().length > 0 : groupAlive(pid)
      if (stopping !== undefined || exit === undefined || left) return false
      forget()
      return true
    },
    holdsFile: (files) => {
      if (files.length === 0 || command.contained === true) return false
      if (cage) return cage.members().some((member) => holdsFile(member, files))
      const adopted = adopting && exit !== undefined ? adoptedChildren() : undefined
      if (adopted?.length === 0) return false
      // An adopted process may be of another tree, but only this tree's processes hold its files.
      return adopted?.some((child) => holdsFile(child.pid, files)) === true || treeHoldsFile(pid, mark, files)
    },
    nodeStreams: () => ({
      ...(stdin ? { stdin: writableOf(stdin) } : {}),
      ...(stdout ? { stdout: nodeStream().Readable.fromWeb(stdout as import("node:stream/web").ReadableStream<Uint8Array>) } : {}),
      ...(stderr ? { stderr: nodeStream().Readable.fromWeb(stderr as import("node:stream/web").ReadableStream<Uint8Array>) } : {}),
    }),
  }
}

/**
 * `startManaged` for Effect code: the tree is stopped when the scope closes
 * (a finished, failed or interrupted fiber alike).
 */
export const managedProcess = (options: ManagedSpawnOptions): Effect.Effect<ManagedProcess, ProcessSpawnError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => startManaged(options),
      catch: (e) => (e instanceof ProcessSpawnError ? e : new ProcessSpawnError({ code: undefined, message: String(e) })),
    }),
    (p) => Effect.promise(() => p.stop()),
  )
