import { Context, Data, Effect, Layer } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { accessSync, constants, readdirSync, readFileSync } from "node:fs"
import type { Readable } from "node:stream"

/** Where one output stream of a process goes, chunk by chunk. */
export interface OutputSink {
  /**
   * Takes the next chunk. A returned promise pauses the stream until it
   * settles (backpressure: a slow consumer slows the command down instead of
   * piling chunks up in memory). Must not reject.
   */
  readonly write: (chunk: Uint8Array) => void | Promise<void>
}

/** One process to run to completion. */
export interface ProcessSpec {
  /** The program: a path, or a name looked up on the PATH of `env`. */
  readonly file: string
  readonly args: ReadonlyArray<string>
  /** Absolute working directory. */
  readonly cwd: string
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>
  /** After this long the process group is ended (TERM, then KILL after `killGraceMs`). */
  readonly timeoutMs: number
  /** How long a process gets between TERM and KILL. */
  readonly killGraceMs: number
  /**
   * After the main process exits, how long output pipes that something in the
   * background still holds open are waited for before that group is ended.
   */
  readonly drainMs: number
  readonly stdout: OutputSink
  readonly stderr: OutputSink
}

/** How a run ended. */
export interface ProcessOutcome {
  readonly pid: number
  /** The exit status; null when the process died of a signal. */
  readonly exitCode: number | null
  /** The signal that ended the process ("SIGTERM"), else null. */
  readonly signal: string | null
  /** The timeout expired and the process group was ended. */
  readonly timedOut: boolean
  /** The main process ended by a signal: sent by the runner (timeout) or by anything else. */
  readonly killed: boolean
  /** The main process exited but background processes kept its output open; the runner ended them. */
  readonly heldOpen: boolean
  /** Wall time from spawn to the end of the output, in milliseconds. */
  readonly durationMs: number
}

/** The process could not be started (no such program, not executable, bad working directory). */
export class ProcessSpawnError extends Data.TaggedError("ProcessSpawnError")<{
  /** errno code: ENOENT, EACCES, ENOTDIR, … */
  readonly code: string | undefined
  readonly message: string
}> {}

/**
 * Runs a process to completion while streaming its output. Each run is its own
 * process group (and session, so nothing can open the user's terminal); on
 * timeout or interruption the whole group is ended — TERM, then KILL after the
 * grace period — and the run returns only once the group is gone.
 *
 * Why not effect's `ChildProcessSpawner`: it does end process groups, but its
 * output passes through an extra PassThrough and an Effect stream step per
 * chunk (measured about 1.7x slower than a direct pipe on 1 GB of output), a
 * death by signal surfaces only as an error message, and it has no notion of
 * "the main process exited but a background child still holds the pipe". The
 * bash tool needs all three, so this small service drives node:child_process
 * directly. It is injected like the other services, so tools stay free of
 * globals and tests can replace it.
 */
export interface ProcessRunnerShape {
  /**
   * Runs `spec`. Stdin is /dev/null (a command never waits for input).
   * Interrupting the effect ends the process group and waits for it to go.
   */
  readonly run: (spec: ProcessSpec) => Effect.Effect<ProcessOutcome, ProcessSpawnError>
}

export class ProcessRunner extends Context.Service<ProcessRunner, ProcessRunnerShape>()("anvil/ProcessRunner") {
  /** The runner on node:child_process (also what Bun provides). */
  static layer = Layer.sync(ProcessRunner, () => ({ run: runProcess }))
}

/** PATH used when the environment has none (what sh itself falls back to). */
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/** How often a dying process group is polled. */
const POLL_MS = 20
/** How long the runner waits for a group to vanish after KILL. */
const AFTER_KILL_MS = 1000

/** Finds `file` on the environment's PATH (the child's PATH, not anvil's). */
const locate = (file: string, env: Readonly<Record<string, string>>): string | undefined => {
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

/**
 * Whether any process of group `pgid` is still alive. Zombies do not count:
 * on Linux /proc tells them apart (a container's init may never reap them);
 * elsewhere a successful kill(0) is taken at its word.
 */
export const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch {
    return false // ESRCH: no such group; EPERM: nothing we may signal
  }
  let names: Array<string>
  try {
    names = readdirSync("/proc")
  } catch {
    return true
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1")
    } catch {
      continue
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
  }
  return false
}

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal)
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const waitGone = async (pgid: number, ms: number): Promise<boolean> => {
  const deadline = performance.now() + ms
  for (;;) {
    if (!groupAlive(pgid)) return true
    if (performance.now() >= deadline) return false
    await sleep(POLL_MS)
  }
}

/** Ends a process group: TERM, up to `graceMs` to go, then KILL. Resolves once it is gone (or KILL had its chance). */
export const terminateGroup = async (pgid: number, graceMs: number): Promise<void> => {
  if (!groupAlive(pgid)) return
  signalGroup(pgid, "SIGTERM")
  // A stopped process cannot act on TERM until it is continued.
  signalGroup(pgid, "SIGCONT")
  if (await waitGone(pgid, graceMs)) return
  signalGroup(pgid, "SIGKILL")
  await waitGone(pgid, AFTER_KILL_MS)
}

const runProcess = (spec: ProcessSpec): Effect.Effect<ProcessOutcome, ProcessSpawnError> =>
  Effect.callback<ProcessOutcome, ProcessSpawnError>((resume) => {
    const started = performance.now()
    const file = locate(spec.file, spec.env)
    if (file === undefined) {
      resume(Effect.fail(new ProcessSpawnError({ code: "ENOENT", message: `command not found: ${spec.file}` })))
      return
    }
    let child: ChildProcess
    try {
      child = spawn(file, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      })
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      resume(Effect.fail(new ProcessSpawnError({ code: err.code, message: err.message })))
      return
    }

    let spawned = false
    let settled = false
    let exited = false
    let exitCode: number | null = null
    let exitSignal: string | null = null
    let timedOut = false
    let heldOpen = false
    let terminating: Promise<void> | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    let drainTimer: ReturnType<typeof setTimeout> | undefined
    const open = new Set<Readable>()
    let pending = 0
    const pgid = () => child.pid ?? 0

    const clearTimers = () => {
      if (timer) clearTimeout(timer)
      if (drainTimer) clearTimeout(drainTimer)
      timer = drainTimer = undefined
    }

    const finish = () => {
      if (settled || !exited || open.size > 0 || pending > 0 || terminating) return
      settled = true
      clearTimers()
      resume(
        Effect.succeed({
          pid: pgid(),
          exitCode,
          signal: exitSignal,
          timedOut,
          killed: exitSignal !== null || timedOut,
          heldOpen,
          durationMs: performance.now() - started,
        }),
      )
    }

    const terminate = (): Promise<void> => {
      if (!terminating) {
        terminating = terminateGroup(pgid(), spec.killGraceMs).then(() => {
          terminating = undefined
          // Anything that escaped the group (setsid) and still holds a pipe is cut off.
          if (exited) for (const stream of open) stream.destroy()
          finish()
        })
      }
      return terminating
    }

    const pump = (stream: Readable, sink: OutputSink) => {
      open.add(stream)
      const done = () => {
        if (!open.delete(stream)) return
        finish()
      }
      // pause() does not stop chunks the runtime already holds (Bun emits them
      // anyway): those wait here, so the sink never sees a chunk before its
      // previous write settled.
      const queued: Array<Uint8Array> = []
      let waiting = false
      const deliver = (chunk: Uint8Array) => {
        const wait = sink.write(chunk)
        if (wait === undefined) return
        waiting = true
        pending++
        stream.pause()
        wait.then(() => {
          waiting = false
          while (!waiting && queued.length > 0) deliver(queued.shift()!)
          if (!waiting && !stream.destroyed) stream.resume()
          pending--
          finish()
        })
      }
      stream.on("data", (chunk: Uint8Array) => {
        if (waiting) queued.push(chunk)
        else deliver(chunk)
      })
      stream.on("end", done)
      stream.on("close", done)
      stream.on("error", done)
    }

    child.on("error", (err: NodeJS.ErrnoException) => {
      if (spawned || settled) return
      settled = true
      clearTimers()
      resume(Effect.fail(new ProcessSpawnError({ code: err.code, message: err.message })))
    })
    child.on("spawn", () => {
      spawned = true
    })
    if (child.stdout) pump(child.stdout, spec.stdout)
    if (child.stderr) pump(child.stderr, spec.stderr)

    timer = setTimeout(() => {
      timer = undefined
      timedOut = true
      void terminate()
    }, spec.timeoutMs)

    child.on("exit", (code, signal) => {
      exited = true
      exitCode = code
      exitSignal = signal
      if (open.size > 0 && !terminating) {
        // The main process is done; give background writers a moment, then end them.
        drainTimer = setTimeout(() => {
          drainTimer = undefined
          if (open.size === 0 || settled) return
          heldOpen = true
          void terminate()
        }, spec.drainMs)
      }
      finish()
    })

    // Interruption (a cancelled call): end the group and wait until it is gone.
    return Effect.promise(async () => {
      clearTimers()
      if (child.pid !== undefined) await terminateGroup(child.pid, spec.killGraceMs)
      for (const stream of open) stream.destroy()
    })
  })
