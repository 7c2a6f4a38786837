import { Cause, Context, Deferred, Effect, Exit, Fiber, Option, type Scope } from "effect"
import { fstatSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { SpillStore, type SpillStream } from "../output/spill-store.ts"
import { countNewlines, readRange } from "../process/file-capture.ts"
import { excerpt, lineCount, type Excerpt } from "../process/output-excerpt.ts"
import type { CapturedStream } from "../process/output-capture.ts"
import type { ProcessRunner } from "../process/process-runner.ts"
import type { SandboxRefusal } from "../sandbox/diagnose.ts"
import type { Sandbox } from "../sandbox/sandbox.ts"
import type { WorkspaceError } from "../workspace/workspace-error.ts"
import type { FileSystem } from "../workspace/file-system.ts"
import { Workspace } from "../workspace/workspace.ts"
import { launchOf, runConfined, type CommandRequest, type ConfinedRun } from "./run-shell.ts"
import { BackgroundUnavailable, NoSuchBackgroundShell, type ShellError } from "./shell-error.ts"

/**
 * Commands run in the background (Claude Code's Bash `run_in_background`): started like any bash command — the
 * same checks, command sandbox and process tree — but the call returns at once with the command's id, while the
 * command writes stdout and stderr together into one spill file (as `cmd > log 2>&1` would). Its output is read
 * back piece by piece (what is new since the last read) and it is stopped on request. Every command still
 * running when the session ends is ended with it (the runtime's scope closes: each command's fiber is
 * interrupted, which ends its process tree), and anvil's exit guard kills whatever is left on any other way out.
 * A command a subagent started is ended when that subagent ends (`stopOwnedBy`), as Claude Code ends a subagent's
 * shells with it: nobody is left to read or stop it.
 */

/** Why a command could not be started (or run). */
export type StartError = ShellError | WorkspaceError

/** How a background command ended, once it did. */
export interface BackgroundEnd {
  /** As `$?` shows it (128 + N for signal N, see process/exit-status.ts); null when it did not run to its end. */
  readonly exitCode: number | null
  /** The signal that ended it, confined or not. */
  readonly signal: string | null
  /** Ended by its timeout. */
  readonly timedOut: boolean
  /** Ended on request (stop, or the session's end). */
  readonly stopped: boolean
  /** Ended by anvil because its output reached the cap. */
  readonly capped: boolean
  /** It could not be started, or failed to run: why. */
  readonly error?: StartError
  readonly refusals: ReadonlyArray<SandboxRefusal>
  readonly durationMs: number
}

/** A background command as results describe it. */
export interface BackgroundShellView {
  readonly id: string
  /** Its command line (or argv), as given. */
  readonly command: string
  readonly cwd: string
  /** Where its output is written, as results name paths. */
  readonly outputPath: string
  readonly status: "running" | "completed" | "failed" | "killed" | "timed_out"
  readonly end?: BackgroundEnd
  /** Bytes written so far. */
  readonly totalBytes: number
  /** The sandbox mode it runs under, and why it runs unconfined when it should not. */
  readonly sandbox: ConfinedRun["sandbox"] | undefined
  /** Its end was in the answer of a read or a stop (so the model knows of it). */
  readonly endSeen: boolean
}

/** How a foreground command that was moved to the background ended: what its output file then holds, and its exit. */
export interface MovedEnd {
  /** The call's whole answer, as it would have been given had the call waited. */
  readonly text: string
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly refusals: ReadonlyArray<SandboxRefusal>
  readonly sandbox?: ConfinedRun["sandbox"] | undefined
}

/** What a foreground command's call gets: the command's own result, or the background command it became. */
export type ForegroundOutcome<A> = { readonly done: A } | { readonly moved: BackgroundShellView }

/** What is new of a background command's output since the last read. */
export interface BackgroundOutput {
  readonly shell: BackgroundShellView
  /** What is shown of the new output (all of it, or its head and tail around a marker). */
  readonly shown: Excerpt
  /** New bytes since the last read, and where they start in the file. */
  readonly newBytes: number
  readonly fromByte: number
  /** Lines of the file before the new output (for reading the part left out with Read's offset). */
  readonly fromLine: number
  /** Lines of the new output. */
  readonly newLines: number
  /** With a filter: the new lines it kept and looked at. */
  readonly filtered?: { readonly kept: number; readonly of: number }
}

/** One request to start a command in the background. */
export interface BackgroundRequest extends CommandRequest {
  /** The command as results show it. */
  readonly shown: string
  /** The call that starts it (a host nests what it says of the command under that call). */
  readonly callId?: string | undefined
  /** The session (or subagent) that starts it: {@link BackgroundShellsShape.stopOwnedBy} ends it with that agent. */
  readonly owner?: string | undefined
  /** The output file is not let grow past this; the command is ended when it does. */
  readonly maxOutputBytes: number
}

/** A command started or ended. */
export interface BackgroundEvent {
  readonly type: "started" | "ended"
  readonly shell: BackgroundShellView
  /** The call that started it. */
  readonly callId?: string | undefined
  /** Where its output is, as an absolute path. */
  readonly outputFile: string
}

export interface ReadOptions {
  /** Keep only the new lines this matches (a line is looked at up to its first 2,000 characters). */
  readonly filter?: RegExp | undefined
  /** Wait this long for the command to end before reading (0: read at once). */
  readonly waitMs: number
  /** What may be shown of the new output. */
  readonly budgetBytes: number
  readonly budgetLines: number
}

export interface BackgroundShellsShape {
  readonly start: (request: BackgroundRequest) => Effect.Effect<BackgroundShellView, StartError>
  readonly read: (id: string, options: ReadOptions) => Effect.Effect<BackgroundOutput, NoSuchBackgroundShell>
  /**
   * Ends the command (its whole process tree) and waits until it is gone; a command that already ended is left as
   * it is. `by: "host"` (a program's stop, not the model's) leaves the end for the model to be told of.
   */
  readonly stop: (id: string, by?: "model" | "host") => Effect.Effect<BackgroundShellView, NoSuchBackgroundShell>
  /**
   * Ends every running command `owner` started (a subagent that ended) and waits until they are gone; their ends
   * count as seen, since no model was told of them (a subagent's ids never reach its parent). Returns them.
   */
  readonly stopOwnedBy: (owner: string) => Effect.Effect<ReadonlyArray<BackgroundShellView>>
  /**
   * Runs a foreground command (`run`, the call's whole run) so that a program can move it to the background while it
   * runs (the Agent SDK's `background_tasks`, Claude Code's Ctrl+B): the call waits for it unless
   * {@link moveToBackground} names it first; then the call answers at once with the background command it became,
   * which goes on as any other (read, stopped, ended with its owner or the session) and whose output file receives
   * `ended(result)` when it ends. Without a call id, or in a runtime of one call, it simply runs.
   */
  readonly foreground: <A, E extends StartError, R>(request: BackgroundRequest, run: Effect.Effect<A, E, R>, ended: (result: A) => MovedEnd) => Effect.Effect<ForegroundOutcome<A>, E, R>
  /** Moves the running foreground command of call `callId` (every one without it) to the background; how many moved. */
  readonly moveToBackground: (callId?: string) => Effect.Effect<number>
  readonly list: () => ReadonlyArray<BackgroundShellView>
  /**
   * Calls `listener` when a command starts and when it ends (however: exit, timeout, stop, the cap, the session's
   * end); returns what stops the calls.
   */
  readonly subscribe: (listener: (event: BackgroundEvent) => void) => () => void
  /** The last `bytes` of a command's output as text, without moving where the next read starts (a host's look at it). */
  readonly tail: (id: string, bytes: number) => Effect.Effect<{ readonly text: string; readonly totalBytes: number; readonly truncated: boolean }, NoSuchBackgroundShell>
}

interface Job {
  readonly id: string
  readonly request: BackgroundRequest
  readonly cwd: string
  readonly file: SpillStream
  readonly shownPath: string
  readonly ended: Deferred.Deferred<void>
  fiber: Fiber.Fiber<void> | undefined
  sandbox: ConfinedRun["sandbox"] | undefined
  end: BackgroundEnd | undefined
  /** Bytes of the file already returned, and the lines in them. */
  cursor: number
  linesRead: number
  capped: boolean
  /** Its start was told (its end is told only after it). */
  announced: boolean
  endSeen: boolean
}

/** How often a running command's output size is looked at (for the cap). */
const CAP_CHECK_MS = 1000
/** A filtered read looks at most at this much of the new output (its end). */
const FILTER_WINDOW = 16 << 20
/** Characters of a line a filter is tried on. */
const FILTER_LINE_CHARS = 2000
/** How long a start waits to see whether the command could be started at all. */
const START_SETTLE_MS = 50

const sizeOf = (fd: number): number => {
  try {
    return fstatSync(fd).size
  } catch {
    return 0
  }
}

const newlinesBetween = (fd: number, from: number, to: number): number => countNewlines(fd, from, to).lines

/** A stream of `total` bytes known by its ends. */
const streamOf = (total: number, newlines: number, head: Uint8Array, tail: Uint8Array): CapturedStream => ({
  totalBytes: total,
  newlines,
  head,
  tail,
  complete: total <= head.length + tail.length,
  spilledBytes: 0,
})

/** How a command ended, in words: "exited with code 2", "was ended by its timeout", "was stopped", … */
export const describeEnd = (end: BackgroundEnd): string =>
  end.error !== undefined
    ? `could not run (${end.error._tag})`
    : end.capped
      ? "was stopped: its output passed the tools.bash.max_spill_bytes cap"
      : end.timedOut
        ? "was ended by its timeout"
        : end.stopped
          ? "was stopped"
          : end.exitCode !== null
            ? `exited with code ${end.exitCode}${end.signal !== null ? ` (killed by ${end.signal})` : ""}`
            : end.signal !== null
              ? `was ended by signal ${end.signal}`
              : "ended"

const statusOf = (end: BackgroundEnd | undefined): BackgroundShellView["status"] =>
  end === undefined ? "running" : end.timedOut ? "timed_out" : end.stopped || end.capped ? "killed" : end.error !== undefined || end.exitCode !== 0 ? "failed" : "completed"

export class BackgroundShells extends Context.Service<BackgroundShells, BackgroundShellsShape>()("anvil/BackgroundShells") {
  /**
   * The session's background commands; closing the scope ends those still running. `sessionLived`: false for a
   * runtime that ends with its one call (`anvil tool`), where a command would be ended as soon as it started.
   */
  static make = (sessionLived: boolean): Effect.Effect<BackgroundShellsShape, never, Scope.Scope | Workspace | SpillStore | ProcessRunner | Sandbox | FileSystem> => Effect.gen(function* () {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Workspace | SpillStore | ProcessRunner | Sandbox | FileSystem>()
    const jobs = new Map<string, Job>()
    const listeners = new Set<(event: BackgroundEvent) => void>()
    const tell = (type: BackgroundEvent["type"], job: Job) => {
      const event: BackgroundEvent = { type, shell: view(job), callId: job.request.callId, outputFile: job.file.path }
      for (const listener of listeners) {
        try {
          listener(event)
        } catch {
          // a listener's failure is its own
        }
      }
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => jobs.forEach((j) => void Effect.runFork(j.file.close))))

    const view = (job: Job): BackgroundShellView => ({
      id: job.id,
      command: job.request.shown,
      cwd: job.cwd,
      outputPath: job.shownPath,
      status: statusOf(job.end),
      ...(job.end ? { end: job.end } : {}),
      totalBytes: sizeOf(job.file.fd),
      sandbox: job.sandbox,
      endSeen: job.endSeen,
    })
    /** The job as an answer shows it: once its end is shown, the model knows of it. */
    const answered = (job: Job): BackgroundShellView => {
      if (job.end !== undefined) job.endSeen = true
      return view(job)
    }

    const find = (id: string) =>
      Effect.suspend(() => {
        const job = jobs.get(id.trim())
        return job ? Effect.succeed(job) : Effect.fail(new NoSuchBackgroundShell({ id, known: [...jobs.keys()] }))
      })

    /** Records how a job ended and tells it (after its start; a command that could not be started is the call's error). */
    const settle = (job: Job, end: Omit<BackgroundEnd, "capped">) =>
      Effect.andThen(
        Effect.sync(() => {
          job.end = { ...end, capped: job.capped }
          if (job.announced) tell("ended", job)
        }),
        Deferred.succeed(job.ended, undefined),
      )

    /** A new job's record, its output file open. */
    const newJob = (request: BackgroundRequest, cwd: string, file: SpillStream, shownPath: string): Job => {
      let id: string
      do id = `bash_${randomBytes(4).toString("hex")}`
      while (jobs.has(id))
      const job: Job = {
        id,
        request,
        cwd,
        file,
        shownPath,
        ended: Deferred.makeUnsafe<void>(),
        fiber: undefined,
        sandbox: undefined,
        end: undefined,
        cursor: 0,
        linesRead: 0,
        capped: false,
        announced: false,
        endSeen: false,
      }
      jobs.set(id, job)
      return job
    }

    /** The command's run, recorded on the job however it ends. */
    const body = (job: Job, launch: Parameters<typeof runConfined>[1]) => {
      const started = performance.now()
      const { fd } = job.file
      const timer = setInterval(() => {
        if (sizeOf(fd) <= job.request.maxOutputBytes || job.capped) return
        job.capped = true
        if (job.fiber) void Effect.runFork(Fiber.interrupt(job.fiber))
      }, CAP_CHECK_MS)
      const record = (end: Omit<BackgroundEnd, "durationMs" | "capped">) =>
        Effect.andThen(
          Effect.sync(() => clearInterval(timer)),
          settle(job, { ...end, durationMs: Math.round(performance.now() - started) }),
        )
      return runConfined(job.request, launch, { fd }, { fd }).pipe(
        Effect.tap((run) => Effect.sync(() => (job.sandbox = run.sandbox))),
        Effect.flatMap((run) => {
          const size = sizeOf(fd)
          const tail = new TextDecoder().decode(readRange(fd, Math.max(0, size - 8000), 8000))
          return Effect.map(run.refusals(tail), (refusals) => ({ outcome: run.outcome, exit: run.exit, refusals }))
        }),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit)
            ? record({ exitCode: exit.value.exit.code, signal: exit.value.exit.signal, timedOut: exit.value.outcome.timedOut, stopped: false, refusals: exit.value.refusals })
            : Exit.hasInterrupts(exit)
              ? record({ exitCode: null, signal: null, timedOut: false, stopped: !job.capped, refusals: [] })
              : Effect.void,
        ),
        Effect.catch((error: StartError) => record({ exitCode: null, signal: null, timedOut: false, stopped: false, error, refusals: [] })),
        Effect.asVoid,
      )
    }

    const start = (request: BackgroundRequest) =>
      Effect.gen(function* () {
        // A call of one tool (`anvil tool bash`) ends with the call: its command would be ended as it returned.
        if (!sessionLived) return yield* new BackgroundUnavailable({ cwd: request.workdir })
        const launch = yield* launchOf(request)
        const workspace = yield* Workspace
        const file = yield* (yield* SpillStore).openStream("Bash", "background.txt").pipe(
          Effect.mapError((e) => new BackgroundUnavailable({ cwd: launch.cwd, reason: `its output file could not be made: ${e.message}` })),
        )
        const job = newJob(request, launch.cwd, file, workspace.display(file.path))
        const id = job.id
        job.fiber = yield* Effect.forkIn(Effect.provideContext(body(job, launch), context), scope)
        // A program that cannot be started (an argv naming nothing, a sandbox that must run and cannot) fails now.
        yield* Effect.timeoutOption(Deferred.await(job.ended), START_SETTLE_MS)
        const failed = job.end?.error
        if (failed !== undefined) {
          jobs.delete(id)
          yield* Effect.andThen(file.remove, file.close)
          return yield* Effect.fail(failed)
        }
        job.announced = true
        tell("started", job)
        if (job.end !== undefined) tell("ended", job)
        return answered(job)
      }).pipe(Effect.provideContext(context))

    const read = (id: string, options: ReadOptions) =>
      Effect.gen(function* () {
        const job = yield* find(id)
        if (options.waitMs > 0 && job.end === undefined) yield* Effect.timeoutOption(Deferred.await(job.ended), options.waitMs)
        const { fd } = job.file
        const size = sizeOf(fd)
        // The command truncated its own output file: read from its start again.
        if (size < job.cursor) job.cursor = job.linesRead = 0
        const from = job.cursor
        const fromLine = job.linesRead
        const newBytes = size - from
        if (options.filter !== undefined) return readFiltered(job, options, size)
        const newlines = newlinesBetween(fd, from, size)
        const span = Math.min(options.budgetBytes + 4, newBytes)
        const stream = streamOf(newBytes, newlines, readRange(fd, from, span), readRange(fd, size - span, span))
        const shown = excerpt(stream, options.budgetBytes, options.budgetLines)
        job.cursor = size
        job.linesRead += newlines
        const out: BackgroundOutput = { shell: answered(job), shown, newBytes, fromByte: from, fromLine, newLines: lineCount(stream) }
        return out
      })

    /** The new complete lines (all of them once the command ended) that match the filter; the rest are passed over. */
    const readFiltered = (job: Job, options: ReadOptions, size: number): BackgroundOutput => {
      const { fd } = job.file
      const from = job.cursor
      const fromLine = job.linesRead
      const windowStart = Math.max(from, size - FILTER_WINDOW)
      const bytes = readRange(fd, windowStart, size - windowStart)
      // While the command runs, a last line without its newline may still grow: it is left for the next read.
      const lastNewline = bytes.lastIndexOf(10)
      const upTo = job.end !== undefined ? bytes.length : lastNewline + 1
      const text = new TextDecoder().decode(bytes.subarray(0, upTo))
      const lines = text.split("\n")
      if (lines.at(-1) === "") lines.pop()
      const kept = lines.filter((l) => options.filter!.test(l.slice(0, FILTER_LINE_CHARS)))
      const keptBytes = new TextEncoder().encode(kept.length > 0 ? `${kept.join("\n")}\n` : "")
      const span = Math.min(options.budgetBytes + 4, keptBytes.length)
      const stream = streamOf(keptBytes.length, kept.length, keptBytes.subarray(0, span), keptBytes.subarray(keptBytes.length - span))
      const consumed = windowStart - from + upTo
      const newlines = newlinesBetween(fd, from, from + consumed)
      job.cursor = from + consumed
      job.linesRead += newlines
      return {
        shell: answered(job),
        shown: excerpt(stream, options.budgetBytes, options.budgetLines),
        newBytes: consumed,
        fromByte: from,
        fromLine,
        newLines: newlines,
        filtered: { kept: kept.length, of: lines.length },
      }
    }

    const stop = (id: string, by: "model" | "host" = "model") =>
      Effect.gen(function* () {
        const job = yield* find(id)
        if (job.end === undefined && job.fiber) {
          yield* Fiber.interrupt(job.fiber)
          yield* Deferred.await(job.ended)
        }
        return by === "model" ? answered(job) : view(job)
      })

    const stopOwnedBy = (owner: string) =>
      Effect.gen(function* () {
        const running = [...jobs.values()].filter((j) => j.request.owner === owner && j.end === undefined)
        yield* Effect.forEach(running, (job) => (job.fiber ? Fiber.interrupt(job.fiber) : Effect.void), { concurrency: "unbounded", discard: true })
        yield* Effect.forEach(running, (job) => Deferred.await(job.ended), { discard: true })
        return running.map((job) => {
          job.endSeen = true
          return view(job)
        })
      })

    /** Foreground commands running now that a program may move to the background, by call id. */
    const movable = new Map<string, Deferred.Deferred<void>>()

    const foreground = <A, E extends StartError, R>(request: BackgroundRequest, run: Effect.Effect<A, E, R>, ended: (result: A) => MovedEnd) =>
      Effect.gen(function* () {
        const callId = request.callId
        if (!sessionLived || callId === undefined || movable.has(callId)) return { done: yield* run } as ForegroundOutcome<A>
        const move = yield* Deferred.make<void>()
        movable.set(callId, move)
        // Forked into the session's scope so that it can outlive the call; while the call waits, it ends with it.
        const fiber = yield* Effect.forkIn(run, scope)
        const first = yield* Effect.raceFirst(Effect.asSome(Fiber.await(fiber)), Effect.as(Deferred.await(move), Option.none())).pipe(
          Effect.onInterrupt(() => Fiber.interrupt(fiber)),
          Effect.ensuring(Effect.sync(() => movable.delete(callId))),
        )
        const moved = Option.isNone(first) ? yield* adopt(request, fiber, ended) : Option.none()
        // Without an output file a moved command could not go on unseen: the call waits for it after all.
        if (Option.isSome(moved)) return { moved: moved.value } as ForegroundOutcome<A>
        return { done: yield* Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber))) } as ForegroundOutcome<A>
      })

    /**
     * A foreground command's run taken on as a background command (its output file gets its answer when it ends);
     * none when no output file could be made.
     */
    const adopt = <A, E extends StartError>(request: BackgroundRequest, fiber: Fiber.Fiber<A, E>, ended: (result: A) => MovedEnd) =>
      Effect.gen(function* () {
        const workspace = yield* Workspace
        const file = yield* (yield* SpillStore).openStream("Bash", "background.txt").pipe(Effect.option)
        if (Option.isNone(file)) return Option.none<BackgroundShellView>()
        // Shown where it runs, as a command started in the background is (its working folder was resolved to start it).
        const dir = yield* workspace.resolve(request.workdir, "workdir").pipe(Effect.option)
        const job = newJob(request, Option.isSome(dir) ? dir.value.display : workspace.cwdDisplay, file.value, workspace.display(file.value.path))
        const started = performance.now()
        const durationMs = () => Math.round(performance.now() - started)
        const follow = Fiber.await(fiber).pipe(
          Effect.flatMap((exit) => {
            if (Exit.isSuccess(exit)) {
              const end = ended(exit.value)
              job.sandbox = end.sandbox
              return Effect.andThen(
                Effect.sync(() => job.file.writeSync(new TextEncoder().encode(end.text))),
                settle(job, { exitCode: end.exitCode, signal: end.signal, timedOut: end.timedOut, stopped: false, refusals: end.refusals, durationMs: durationMs() }),
              )
            }
            const error = exit.cause.reasons.find(Cause.isFailReason)?.error
            // Interrupted, it was stopped (the session's end); a defect is a failure, not a stop.
            const stopped = error === undefined && Exit.hasInterrupts(exit)
            return settle(job, { exitCode: null, signal: null, timedOut: false, stopped, ...(error !== undefined ? { error } : {}), refusals: [], durationMs: durationMs() })
          }),
          // A stop ends the command's run, then records it as stopped.
          Effect.onInterrupt(() =>
            Effect.andThen(Fiber.interrupt(fiber), settle(job, { exitCode: null, signal: null, timedOut: false, stopped: true, refusals: [], durationMs: durationMs() })),
          ),
        )
        job.fiber = yield* Effect.forkIn(Effect.asVoid(follow), scope)
        job.announced = true
        tell("started", job)
        return Option.some(view(job))
      }).pipe(Effect.provideContext(context))

    const moveToBackground = (callId?: string) =>
      Effect.gen(function* () {
        const moves = callId === undefined ? [...movable.values()] : [movable.get(callId)].filter((m) => m !== undefined)
        for (const move of moves) yield* Deferred.succeed(move, undefined)
        return moves.length
      })

    const tail = (id: string, bytes: number) =>
      Effect.map(find(id), (job) => {
        const size = sizeOf(job.file.fd)
        const from = Math.max(0, size - bytes)
        return { text: new TextDecoder().decode(readRange(job.file.fd, from, size - from)), totalBytes: size, truncated: from > 0 }
      })

    const subscribe = (listener: (event: BackgroundEvent) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    }

    return { start, read, stop, stopOwnedBy, foreground, moveToBackground, tail, subscribe, list: () => [...jobs.values()].map(view) }
  })
}

/** Runs a foreground command that a program may move to the background (see {@link BackgroundShellsShape.foreground}). */
export const runForeground = <A, E extends StartError, R>(request: BackgroundRequest, run: Effect.Effect<A, E, R>, ended: (result: A) => MovedEnd) =>
  Effect.gen(function* () {
    const shells = yield* BackgroundShells
    return yield* shells.foreground(request, run, ended)
  })

/** The session's background commands as an agent (a subagent) sees them: the commands it starts are its own. */
export const ownedBy = (shells: BackgroundShellsShape, owner: string): BackgroundShellsShape => ({
  ...shells,
  start: (request) => shells.start({ ...request, owner }),
  foreground: (request, run, ended) => shells.foreground({ ...request, owner }, run, ended),
})

/** Starts a command in the background (see {@link BackgroundShells}). */
export const startBackground = (request: BackgroundRequest) =>
  Effect.gen(function* () {
    const shells = yield* BackgroundShells
    return yield* shells.start(request)
  })
