import { Effect } from "effect"
import { pathStopOf } from "../workspace/file-in-the-way.ts"
import { statfsSync } from "node:fs"
import { dirname } from "node:path"
import { FileSystem } from "../workspace/file-system.ts"
import { SpillStore, type SpillStoreShape, type SpillStream } from "../output/spill-store.ts"
import { FileCapture } from "../process/file-capture.ts"
import { OutputCapture, type CapturedStream, type SpillTarget } from "../process/output-capture.ts"
import { excerpt, lineCount, share, type Excerpt } from "../process/output-excerpt.ts"
import { ProcessRunner, type OutputTarget, type ProcessOutcome } from "../process/process-runner.ts"
import { shellExit, type ShellExit } from "../process/exit-status.ts"
import type { SandboxRefusal } from "../sandbox/diagnose.ts"
import { Sandbox } from "../sandbox/sandbox.ts"
import { definedEnv } from "../sandbox/command-env.ts"
import { closeQuietly, fdPath } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { Workspace } from "../workspace/workspace.ts"
import type { LiveOutput } from "./live-output.ts"
import { CommandNotStarted, CommandTimedOut, SandboxRefused, WorkdirNotDirectory, WorkdirNotFound } from "./shell-error.ts"

/** One command to run: a shell command line, or an argv run without a shell. */
export interface ShellRequest {
  readonly command?: string | undefined
  readonly args?: ReadonlyArray<string> | undefined
  /** The working directory as given (relative to the working directory, or absolute inside the project). */
  readonly workdir: string
  /** The shell a command line runs with (`-lc`). */
  readonly shell: string
  /** The whole environment of the command. */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number
  /** The longest timeout allowed (for the error's suggestion). */
  readonly maxTimeoutMs: number
  readonly killGraceMs: number
  readonly drainMs: number
  /** How much output is shown, in bytes and lines, shared between stdout and stderr. */
  readonly budgetBytes: number
  readonly budgetLines: number
  /** A stream larger than this is not saved whole. */
  readonly maxSpillBytes: number
  /** Run outside the command sandbox. */
  readonly unconfined: boolean
  /**
   * How output is captured. "file" (the default): the command writes each
   * stream straight into a spill file, read back afterwards; "pipe": through a
   * pipe and anvil's memory, spilled as it comes — what "file" falls back to
   * when the spill folder cannot be written. Both give the same answer.
   */
  readonly capture?: "file" | "pipe" | undefined
  /** Given the command's stream files while it runs (file capture), for a program that moves it to the background. */
  readonly live?: LiveOutput | undefined
}

/** One output stream of a command that ran: what is shown of it and where it was saved whole. */
export interface StreamReport {
  /** Its head and tail with a marker of what was left out. */
  readonly shown: Excerpt
  readonly totalBytes: number
  readonly lines: number
  /** Where a stream shown cut was saved whole, as results name paths. */
  readonly path: string | null
  /** Why it could not be saved (whole), when it could not. */
  readonly spillProblem?: string | undefined
}

/** A command that ran (whatever its exit code). */
export interface ShellRun {
  readonly outcome: ProcessOutcome
  /** How it ended as a shell shows it: `$?` (128 + N for signal N) and the signal, confined or not. */
  readonly exit: ShellExit
  readonly stdout: StreamReport
  readonly stderr: StreamReport
  /** The working directory, as results name paths. */
  readonly cwd: string
  /**
   * The file system the command wrote its output to was full when it ended
   * (its output may be cut where a write failed): the folder, as results name
   * paths, and the bytes left.
   */
  readonly diskFull?: { readonly folder: string; readonly freeBytes: number }
  /**
   * The sandbox mode the command ran under ("off" when unconfined), what it refused, and, when the command
   * should have been confined but the sandbox cannot run here, why it ran unconfined.
   */
  readonly sandbox: {
    readonly mode: string
    readonly refusals: ReadonlyArray<SandboxRefusal>
    readonly unavailable?: string
    /** The project's sandbox settings that were ignored (not trusted), with the next step. */
    readonly projectIgnored?: string
    /** The environment variables withheld from the command as secrets (names only). */
    readonly envWithheld: ReadonlyArray<string>
  }
}

/** Fewer free bytes than this where a command's output went: its writes may have failed (ENOSPC, a quota). */
const FULL_BELOW = 64 * 1024

/** The free bytes of the file system holding `file` when it is (nearly) full, else undefined. */
const freeIfFull = (file: string): number | undefined => {
  try {
    const s = statfsSync(dirname(file))
    // root may fill the blocks reserved for it, a user only the available ones.
    const free = Number(process.getuid?.() === 0 ? s.bfree : s.bavail) * Number(s.bsize)
    return free < FULL_BELOW ? free : undefined
  } catch {
    return undefined
  }
}

/** How an argv reads on a command line. */
export const quoteArg = (a: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)

/** The environment variable carrying the caller's PATH past the login profile. */
const CALLER_PATH = "ANVIL_CALLER_PATH"

/**
 * `sh -l` reads /etc/profile, which on many systems sets PATH from scratch and
 * would hide the tools the user's own PATH provides (node_modules/.bin, nvm,
 * cargo…). The caller's PATH is put back in front of whatever the profile
 * chose, on the command's own first line so error line numbers do not move.
 */
const withCallerPath = (command: string, env: Readonly<Record<string, string>>): string =>
  env.PATH === undefined
    ? command
    : `PATH="$${CALLER_PATH}\${PATH:+:$PATH}"; export PATH; unset ${CALLER_PATH}; ${command}`

/** The last part of a captured stream as text, for reading the sandbox's refusals. */
const tailText = (c: CapturedStream): string => new TextDecoder().decode(c.tail.length > 0 ? c.tail : c.head).slice(-8000)

/** The services {@link runShell} uses beyond the core ones (a tool's `requires`). */
export const SHELL_SERVICES = [ProcessRunner, Sandbox] as const

/**
 * Runs a command line through `<shell> -lc`, or an argv without a shell,
 * inside the project and the command sandbox.
 *
 * - Each run is its own process group; stdin is /dev/null. On timeout,
 *   cancellation, or when background processes keep the output open after the
 *   command exits, the whole group is ended (TERM, then KILL).
 * - Output goes straight to disk: the command's stdout and stderr are two new
 *   spill files (kept apart), counted as they grow; only their first and last
 *   parts are read back, and a file not needed (its stream shown whole) is
 *   removed. Without a writable spill folder the streams come through pipes,
 *   with the same answer. What is shown is the head and the tail of each stream, the
 *   budget shared so that each gets what it needs and the larger one the rest.
 * - The environment is passed through without what looks like a secret
 *   (the sandbox's rule, sandbox/command-env.ts); login profiles that reset
 *   PATH get the caller's PATH put back in front.
 */
export const runShell = (request: ShellRequest) =>
  Effect.gen(function* () {
    const store = yield* SpillStore
    const launch = yield* launchOf(request)
    // A few bytes over the half budget shown: the excerpt must see the byte after the head's cut and the one before the
    // tail's, or it cut inside a UTF-8 character (a byte neither shown nor counted) and miscounted the unseen lines.
    const capacity = Math.ceil(request.budgetBytes / 2) + 4
    const captures = (request.capture === "pipe" ? undefined : yield* fileCaptures(store, capacity, request.maxSpillBytes)) ??
      pipeCaptures(store, capacity, request.maxSpillBytes)
    const [out, err] = captures
    if (out.fd !== undefined && err.fd !== undefined) request.live?.attach([out.fd, err.fd])
    return yield* runCaptured(request, captures, launch).pipe(
      Effect.ensuring(Effect.andThen(Effect.sync(() => request.live?.detach()), Effect.promise(() => Promise.all(captures.map((c) => c.close()))))),
    )
  })

/** The part of a request that says what to run and where (what {@link launchOf} and {@link runConfined} read). */
export type CommandRequest = Pick<ShellRequest, "command" | "args" | "workdir" | "shell" | "env" | "timeoutMs" | "killGraceMs" | "drainMs" | "unconfined">

/** The program to start, after the request was checked: the working folder resolved, the environment made. */
export const launchOf = (request: CommandRequest) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const { command, args } = request
    const dir = yield* workspace.resolve(request.workdir, "workdir")
    if (!dir.exists) return yield* new WorkdirNotFound({ cwd: dir.display, opened: false, ...pathStopOf(dir.absolute, dir.display) })
    const info = yield* (yield* FileSystem).stat(dir.real).pipe(Effect.option)
    if (info._tag === "Some" && info.value.type !== "Directory") return yield* new WorkdirNotDirectory({ cwd: dir.display })
    const env = definedEnv(request.env)
    const [file, argv] = command !== undefined ? [request.shell, ["-lc", withCallerPath(command, env)]] : [args![0]!, args!.slice(1)]
    if (command !== undefined && env.PATH !== undefined) env[CALLER_PATH] = env.PATH
    const launch: Launch = { file, argv, env, cwd: dir.display, real: dir.real }
    return launch
  })

/** One output stream being captured, whichever way. */
interface StreamCapture {
  /** Where the runner sends the stream. */
  readonly target: OutputTarget
  /** Called as the command starts. */
  readonly follow: () => void
  /** After the run: everything written and counted. */
  readonly finish: () => Promise<void>
  readonly snapshot: () => CapturedStream
  /** Saves the stream whole even when it fit in memory (it is shown cut). */
  readonly ensureSpilled: () => Promise<void>
  /** Releases what is left (an unneeded file is removed). */
  readonly close: () => Promise<void>
  /** The file the command writes the stream to itself, when it does, and its descriptor. */
  readonly file?: string
  readonly fd?: number
}

type Captures = readonly [stdout: StreamCapture, stderr: StreamCapture]

/**
 * Both streams written straight into new spill files by the command (see
 * FileCapture); undefined when the spill folder cannot take them, and the
 * pipe is used instead.
 */
const fileCaptures = (store: SpillStoreShape, capacity: number, maxSpillBytes: number) =>
  Effect.gen(function* () {
    const out = yield* store.openStream("Bash", "stdout.txt").pipe(Effect.option)
    if (out._tag === "None") return undefined
    const err = yield* store.openStream("Bash", "stderr.txt").pipe(Effect.option)
    if (err._tag === "None") {
      yield* Effect.andThen(out.value.remove, out.value.close)
      return undefined
    }
    const capture = (s: SpillStream): StreamCapture => {
      const c = new FileCapture({
        capacity,
        maxSpillBytes,
        file: { path: s.path, fd: s.fd, remove: () => Effect.runSync(s.remove), close: () => Effect.runPromise(s.close) },
      })
      return { target: c.target, follow: () => c.follow(), finish: () => c.finish(), snapshot: () => c.snapshot(), ensureSpilled: () => c.ensureSpilled(), close: () => c.close(), file: s.path, fd: s.fd }
    }
    const captures: Captures = [capture(out.value), capture(err.value)]
    return captures
  })

/** Both streams through a pipe into bounded memory, spilled as they grow (see OutputCapture). */
const pipeCaptures = (store: SpillStoreShape, capacity: number, maxSpillBytes: number): Captures => {
  const spillTo = (stream: "stdout" | "stderr"): SpillTarget => ({
    open: () =>
      Effect.runPromise(
        store.openStream("Bash", `${stream}.txt`).pipe(
          Effect.map((s) => ({
            path: s.path,
            write: (bytes: Uint8Array) => Effect.runPromise(s.write(bytes)),
            writeSync: s.writeSync,
            close: () => Effect.runPromise(s.close),
          })),
          Effect.catch((e) => Effect.succeed({ error: e.message })),
        ),
      ),
  })
  const capture = (stream: "stdout" | "stderr"): StreamCapture => {
    const c = new OutputCapture({ capacity, maxSpillBytes, spill: spillTo(stream) })
    return { target: c, follow: () => undefined, finish: () => c.finish(), snapshot: () => c.snapshot(), ensureSpilled: () => c.ensureSpilled(), close: async () => undefined }
  }
  return [capture("stdout"), capture("stderr")]
}

/** The program to start, after the request was checked. */
export interface Launch {
  readonly file: string
  readonly argv: ReadonlyArray<string>
  readonly env: Record<string, string>
  /** The working directory as results name it, and its real path. */
  readonly cwd: string
  readonly real: string
}

/** The sandbox a command ran under, as its report gives it. */
export interface ConfinedRun {
  readonly outcome: ProcessOutcome
  /** Reads the sandbox's refusals from the end of the command's output (and removes the stand-ins, if still there). */
  readonly refusals: (output: string) => Effect.Effect<ReadonlyArray<SandboxRefusal>>
  /** What ShellRun.sandbox says but the refusals. */
  readonly sandbox: Omit<ShellRun["sandbox"], "refusals">
  /** How it ended as a shell shows it (see ShellRun.exit). */
  readonly exit: ShellExit
}

/**
 * Runs the checked command inside the command sandbox with its output going to the targets; `whenDone` runs
 * however the run ends, before the sandbox's stand-ins go.
 */
export const runConfined = (request: CommandRequest, { file, argv, env, cwd, real }: Launch, stdout: OutputTarget, stderr: OutputTarget, whenDone: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const runner = yield* ProcessRunner
    // The working folder is opened and checked now and the process started in that very folder (through its
    // descriptor), so a link swapped in after the check cannot move the command out of the root.
    const folder = yield* openChecked(workspace.contains, real, request.workdir, cwd, "workdir")
    if (folder === undefined || !folder.stat.isDirectory()) {
      closeQuietly(folder?.fd)
      return yield* new WorkdirNotFound({ cwd, opened: true })
    }
    const sandbox = yield* Sandbox
    // Only bash runs here, after its permission check: the command was approved.
    const wrapped = yield* sandbox.wrap({ cwd: real, unconfined: request.unconfined, command: request.command ?? request.args?.join(" "), drainMs: request.drainMs, approved: true }).pipe(
      Effect.mapError((e) => new SandboxRefused({ message: e.message, cwd, refusedBy: e.refusedBy, nextStep: e.nextStep })),
      Effect.tapError(() => Effect.sync(() => closeQuietly(folder.fd))),
    )
    const ran = yield* runner
      .run({
        file,
        args: argv,
        cwd: real,
        cwdHandle: fdPath(folder.fd),
        env,
        timeoutMs: request.timeoutMs,
        killGraceMs: request.killGraceMs,
        drainMs: request.drainMs,
        stdout,
        stderr,
        ...(wrapped.wrap ? { wrap: wrapped.wrap } : {}),
      })
      .pipe(
        Effect.ensuring(Effect.sync(() => closeQuietly(folder.fd))),
        Effect.ensuring(whenDone),
        // Stand-ins go however the run ends (the output is read for refusals below).
        Effect.ensuring(wrapped.finish("")),
        Effect.mapError((e) =>
          e.code === "ENOTDIR"
            ? new WorkdirNotDirectory({ cwd })
            : new CommandNotStarted({ kind: e.code === "ENOENT" ? "not_found" : e.code === "EACCES" ? "not_executable" : "other", file, message: e.message, cwd }),
        ),
      )
    // Confined, what the command left in the background is waited for inside the sandbox (sandbox/drain-init.ts).
    const outcome = wrapped.heldOpen() ? { ...ran, heldOpen: true } : ran
    const mode = wrapped.confined ? sandbox.status.settings.mode : "off"
    const unavailable = !wrapped.confined && !request.unconfined && sandbox.status.settings.mode !== "off" ? sandbox.status.warning : undefined
    const ignored = sandbox.status.settings.projectIgnored
    const run: ConfinedRun = {
      outcome,
      exit: shellExit(outcome, wrapped.confined),
      refusals: wrapped.finish,
      sandbox: { mode, envWithheld: wrapped.envWithheld(), ...(unavailable ? { unavailable } : {}), ...(ignored ? { projectIgnored: ignored } : {}) },
    }
    return run
  })

/** Runs the checked command with its output going to `captures`, and reports what is shown of it. */
const runCaptured = (request: ShellRequest, [stdout, stderr]: Captures, launch: Launch) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const { cwd } = launch
    stdout.follow()
    stderr.follow()
    const { outcome, exit, refusals: readRefusals, sandbox } = yield* runConfined(
      request,
      launch,
      stdout.target,
      stderr.target,
      // The last of its output reaches a background command it became before the files are read back (and maybe cut).
      Effect.andThen(Effect.sync(() => request.live?.detach()), Effect.promise(() => Promise.all([stdout.finish(), stderr.finish()]))),
    )

    const out = stdout.snapshot()
    const err = stderr.snapshot()
    const refusals = yield* readRefusals(`${tailText(out)}\n${tailText(err)}`)
    if (outcome.timedOut && out.totalBytes + err.totalBytes === 0) {
      return yield* new CommandTimedOut({ timeoutMs: request.timeoutMs, maxTimeoutMs: request.maxTimeoutMs, cwd })
    }

    // Share the budget: each stream gets what it needs, the larger one the rest.
    const { budgetBytes, budgetLines } = request
    const [outBytes, errBytes] = share(budgetBytes, Math.min(out.totalBytes, budgetBytes), Math.min(err.totalBytes, budgetBytes))
    const [outLines, errLines] = share(budgetLines, Math.min(lineCount(out), budgetLines), Math.min(lineCount(err), budgetLines))
    const outShown = excerpt(out, Math.max(outBytes, 64), Math.max(outLines, 2))
    const errShown = excerpt(err, Math.max(errBytes, 64), Math.max(errLines, 2))
    // A stream shown cut must be on disk whole, even when it fit in memory.
    if (outShown.truncated) yield* Effect.promise(() => stdout.ensureSpilled())
    if (errShown.truncated) yield* Effect.promise(() => stderr.ensureSpilled())
    const report = (c: CapturedStream, shown: Excerpt): StreamReport => ({
      shown,
      totalBytes: c.totalBytes,
      lines: lineCount(c),
      path: c.spillPath !== undefined ? workspace.display(c.spillPath) : null,
      ...(c.spillProblem !== undefined ? { spillProblem: c.spillProblem } : {}),
    })
    const full = stdout.file !== undefined ? freeIfFull(stdout.file) : undefined
    const run: ShellRun = {
      outcome,
      exit,
      stdout: report(stdout.snapshot(), outShown),
      stderr: report(stderr.snapshot(), errShown),
      cwd,
      ...(full !== undefined ? { diskFull: { folder: workspace.display(dirname(stdout.file!)), freeBytes: full } } : {}),
      sandbox: { ...sandbox, refusals },
    }
    return run
  })
