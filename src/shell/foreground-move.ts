import { Cause, Deferred, Effect, Exit, Fiber, Option, type Context, type Scope } from "effect"
import { SpillStore } from "../output/spill-store.ts"
import { Workspace } from "../workspace/workspace.ts"
import type { JobTable } from "./background-jobs.ts"
import type { BackgroundRequest, BackgroundShellView, ForegroundOutcome, MovedEnd, StartError } from "./background-types.ts"
import type { LiveOutput } from "./live-output.ts"

/**
 * Foreground commands a program may move to the background while their call waits (the Agent SDK's
 * `background_tasks`, Claude Code's Ctrl+B): the call then answers at once with the background command it became.
 */

/** The background command a foreground one became, and whether its output is followed as it comes. */
interface Moved {
  readonly view: BackgroundShellView
  readonly live: boolean
}

/** One running foreground command that may be moved: the request to move it, and whether it moved. */
interface Movable {
  readonly move: Deferred.Deferred<void>
  readonly moved: Deferred.Deferred<boolean>
}

export const makeForeground = (table: JobTable, scope: Scope.Scope, context: Context.Context<Workspace | SpillStore>, sessionLived: boolean) => {
  /** Foreground commands running now, by call id. */
  const movable = new Map<string, Movable>()

  const foreground = <A, E extends StartError, R>(request: BackgroundRequest, run: Effect.Effect<A, E, R>, ended: (result: A) => MovedEnd, live?: LiveOutput) =>
    Effect.gen(function* () {
      const callId = request.callId
      if (!sessionLived || callId === undefined || movable.has(callId)) return { done: yield* run } as ForegroundOutcome<A>
      const entry: Movable = { move: yield* Deferred.make<void>(), moved: yield* Deferred.make<boolean>() }
      movable.set(callId, entry)
      let moved = false
      // Forked into the session's scope so that it can outlive the call; while the call waits, it ends with it.
      const fiber = yield* Effect.forkIn(run, scope)
      const became = yield* Effect.gen(function* () {
        const first = yield* Effect.raceFirst(Effect.asSome(Fiber.await(fiber)), Effect.as(Deferred.await(entry.move), Option.none()))
        // A move that came as the command ended moves nothing: the call has its answer, and the program is told so.
        if (Option.isSome(first) || fiber.pollUnsafe() !== undefined) return Option.none<Moved>()
        const view = yield* adopt(request, fiber, ended, live)
        moved = Option.isSome(view)
        return view
      }).pipe(
        Effect.onInterrupt(() => Fiber.interrupt(fiber)),
        Effect.ensuring(
          Effect.suspend(() => {
            movable.delete(callId)
            return Deferred.succeed(entry.moved, moved)
          }),
        ),
      )
      // Without an output file a moved command could not go on unseen: the call waits for it after all.
      if (Option.isSome(became)) return { moved: became.value.view, live: became.value.live } as ForegroundOutcome<A>
      return { done: yield* Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber))) } as ForegroundOutcome<A>
    })

  /**
   * A foreground command's run taken on as a background command; none when no output file could be made. Its
   * output is copied into the file as it comes (`live`), or its answer is written there when it ends.
   */
  const adopt = <A, E extends StartError>(request: BackgroundRequest, fiber: Fiber.Fiber<A, E>, ended: (result: A) => MovedEnd, live: LiveOutput | undefined) =>
    Effect.gen(function* () {
      const workspace = yield* Workspace
      const file = yield* (yield* SpillStore).openStream("Bash", "background.txt").pipe(Effect.option)
      if (Option.isNone(file)) return Option.none<Moved>()
      // Shown where it runs, as a command started in the background is (its working folder was resolved to start it).
      const dir = yield* workspace.resolve(request.workdir, "workdir").pipe(Effect.option)
      // The command ended while its output file was made: nothing is left to move.
      if (fiber.pollUnsafe() !== undefined) {
        yield* Effect.andThen(file.value.remove, file.value.close)
        return Option.none<Moved>()
      }
      const job = table.newJob(request, Option.isSome(dir) ? dir.value.display : workspace.cwdDisplay, file.value, workspace.display(file.value.path))
      if (live) {
        const copy = (bytes: Uint8Array) => {
          try {
            job.file.writeSync(bytes)
          } catch {
            // The file is closed (the session ended) or its disk is full: that part is not copied.
          }
        }
        live.follow(copy, request.maxOutputBytes)
        job.refresh = () => live.pump()
      }
      const started = performance.now()
      const durationMs = () => Math.round(performance.now() - started)
      /** Records the run's end (uninterruptible where it is called: a stop arriving meanwhile cannot cut it in two). */
      const finish = (exit: Exit.Exit<A, E>) =>
        Effect.suspend(() => {
          // Its output was copied as it came, unless it never went to files that could be followed.
          const following = live?.attached === true
          if (following && live!.overflowed) job.file.writeSync(new TextEncoder().encode(`\n[output past ${request.maxOutputBytes} bytes was not kept (tools.bash.max_spill_bytes)]\n`))
          if (Exit.isSuccess(exit)) {
            const end = ended(exit.value)
            job.sandbox = end.sandbox
            if (!following) job.file.writeSync(new TextEncoder().encode(end.text))
            return table.settle(job, { exitCode: end.exitCode, signal: end.signal, timedOut: end.timedOut, stopped: false, refusals: end.refusals, durationMs: durationMs() })
          }
          const error = exit.cause.reasons.find(Cause.isFailReason)?.error
          // Interrupted, it was stopped (a stop, the session's end); a defect is a failure, not a stop.
          const stopped = error === undefined && Exit.hasInterrupts(exit)
          return table.settle(job, { exitCode: null, signal: null, timedOut: false, stopped, ...(error !== undefined ? { error } : {}), refusals: [], durationMs: durationMs() })
        })
      // Only the wait can be interrupted. A stop ends the run, then records how it ended: a run that had finished as
      // the stop came keeps its answer.
      const follow = Effect.uninterruptibleMask((restore) =>
        restore(Fiber.await(fiber)).pipe(
          Effect.onInterrupt(() => Effect.andThen(Fiber.interrupt(fiber), Effect.flatMap(Fiber.await(fiber), finish))),
          Effect.flatMap(finish),
        ),
      )
      job.fiber = yield* Effect.forkIn(Effect.asVoid(follow), scope)
      job.announced = true
      job.moved = true
      table.tell("started", job)
      return Option.some<Moved>({ view: table.view(job), live: live !== undefined })
    }).pipe(Effect.provideContext(context))

  const moveToBackground = (callId?: string) =>
    Effect.gen(function* () {
      const entries = callId === undefined ? [...movable.values()] : [movable.get(callId)].filter((m) => m !== undefined)
      for (const entry of entries) yield* Deferred.succeed(entry.move, undefined)
      const moved = yield* Effect.forEach(entries, (entry) => Deferred.await(entry.moved))
      return moved.filter(Boolean).length
    })

  return { foreground, moveToBackground }
}

