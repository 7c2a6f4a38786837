import { Deferred, Effect, Exit, Fiber, type Context, type Scope } from "effect"
import { readRange, sizeOf } from "../process/file-capture.ts"
import type { ProcessRunner } from "../process/process-runner.ts"
import type { Sandbox } from "../sandbox/sandbox.ts"
import { SpillStore } from "../output/spill-store.ts"
import type { FileSystem } from "../workspace/file-system.ts"
import { Workspace } from "../workspace/workspace.ts"
import type { Job, JobTable } from "./background-jobs.ts"
import type { BackgroundEnd, BackgroundRequest, StartError } from "./background-types.ts"
import { launchOf, runConfined } from "./run-shell.ts"
import { BackgroundUnavailable } from "./shell-error.ts"

/**
 * Starting a command in the background (Bash `run_in_background`): the same checks, sandbox and process tree as
 * any command, its stdout and stderr written together into one output file (as `cmd > log 2>&1` would), ended when
 * that file passes the cap.
 */

/** The services a background command runs with. */
export type RunServices = Workspace | SpillStore | ProcessRunner | Sandbox | FileSystem

/** How often a running command's output size is looked at (for the cap). */
const CAP_CHECK_MS = 1000
/** How long a start waits to see whether the command could be started at all. */
const START_SETTLE_MS = 50

/** The command's run, recorded on the job however it ends. */
const body = (table: JobTable, job: Job, launch: Parameters<typeof runConfined>[1]) => {
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
      table.settle(job, { ...end, durationMs: Math.round(performance.now() - started) }),
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

/**
 * Starts `request` in the background, its run forked into `scope` (closing it ends the command); fails when the
 * command could not be started at all.
 */
export const startIn = (table: JobTable, scope: Scope.Scope, context: Context.Context<RunServices>, request: BackgroundRequest) =>
  Effect.gen(function* () {
    const launch = yield* launchOf(request)
    const workspace = yield* Workspace
    const file = yield* (yield* SpillStore).openStream("Bash", "background.txt").pipe(
      Effect.mapError((e) => new BackgroundUnavailable({ cwd: launch.cwd, reason: `its output file could not be made: ${e.message}` })),
    )
    const job = table.newJob(request, launch.cwd, file, workspace.display(file.path))
    job.fiber = yield* Effect.forkIn(Effect.provideContext(body(table, job, launch), context), scope)
    // A program that cannot be started (an argv naming nothing, a sandbox that must run and cannot) fails now.
    yield* Effect.timeoutOption(Deferred.await(job.ended), START_SETTLE_MS)
    const failed = job.end?.error
    if (failed !== undefined) {
      table.jobs.delete(job.id)
      yield* Effect.andThen(file.remove, file.close)
      return yield* Effect.fail(failed)
    }
    job.announced = true
    table.tell("started", job)
    if (job.end !== undefined) table.tell("ended", job)
    return table.answered(job)
  }).pipe(Effect.provideContext(context))
