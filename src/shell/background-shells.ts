import { Context, Deferred, Effect, Fiber, type Scope } from "effect"
import type { SpillStore } from "../output/spill-store.ts"
import type { ProcessRunner } from "../process/process-runner.ts"
import type { Sandbox } from "../sandbox/sandbox.ts"
import type { FileSystem } from "../workspace/file-system.ts"
import type { Workspace } from "../workspace/workspace.ts"
import { makeJobTable } from "./background-jobs.ts"
import { readNew, tailOf } from "./background-read.ts"
import { startIn } from "./background-start.ts"
import type { BackgroundRequest, BackgroundShellsShape, MovedEnd, StartError } from "./background-types.ts"
import { makeForeground } from "./foreground-move.ts"
import type { LiveOutput } from "./live-output.ts"
import { BackgroundUnavailable } from "./shell-error.ts"

/**
 * Commands run in the background (Claude Code's Bash `run_in_background`): started like any bash command — the
 * same checks, command sandbox and process tree — but the call returns at once with the command's id, while the
 * command writes stdout and stderr together into one spill file (as `cmd > log 2>&1` would). Its output is read
 * back piece by piece (what is new since the last read) and it is stopped on request. A foreground command a
 * program moves to the background joins them. Every command still running when the session ends is ended with it
 * (the runtime's scope closes: each command's fiber is interrupted, which ends its process tree), and anvil's exit
 * guard kills whatever is left on any other way out. A command a subagent started is ended when that subagent ends
 * (`stopOwnedBy`), as Claude Code ends a subagent's shells with it: nobody is left to read or stop it.
 */
export class BackgroundShells extends Context.Service<BackgroundShells, BackgroundShellsShape>()("anvil/BackgroundShells") {
  /**
   * The session's background commands; closing the scope ends those still running. `sessionLived`: false for a
   * runtime that ends with its one call (`anvil tool`), where a command would be ended as soon as it started.
   */
  static make = (sessionLived: boolean): Effect.Effect<BackgroundShellsShape, never, Scope.Scope | Workspace | SpillStore | ProcessRunner | Sandbox | FileSystem> => Effect.gen(function* () {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Workspace | SpillStore | ProcessRunner | Sandbox | FileSystem>()
    const table = makeJobTable()
    yield* Effect.addFinalizer(() => Effect.sync(() => table.jobs.forEach((j) => void Effect.runFork(j.file.close))))

    const start = (request: BackgroundRequest) =>
      // A call of one tool (`anvil tool bash`) ends with the call: its command would be ended as it returned.
      sessionLived ? startIn(table, scope, context, request) : Effect.fail(new BackgroundUnavailable({ cwd: request.workdir }))

    const stop = (id: string, by: "model" | "host" = "model") =>
      Effect.gen(function* () {
        const job = yield* table.find(id)
        if (job.end === undefined && job.fiber) {
          yield* Fiber.interrupt(job.fiber)
          yield* Deferred.await(job.ended)
        }
        return by === "model" ? table.answered(job) : table.view(job)
      })

    const stopOwnedBy = (owner: string) =>
      Effect.gen(function* () {
        const running = [...table.jobs.values()].filter((j) => j.request.owner === owner && j.end === undefined)
        yield* Effect.forEach(running, (job) => (job.fiber ? Fiber.interrupt(job.fiber) : Effect.void), { concurrency: "unbounded", discard: true })
        yield* Effect.forEach(running, (job) => Deferred.await(job.ended), { discard: true })
        return running.map((job) => {
          job.endSeen = true
          return table.view(job)
        })
      })

    const { foreground, moveToBackground } = makeForeground(table, scope, context, sessionLived)
    return {
      start,
      read: (id, options) => readNew(table, id, options),
      stop,
      stopOwnedBy,
      foreground,
      moveToBackground,
      tail: (id, bytes) => tailOf(table, id, bytes),
      subscribe: table.subscribe,
      list: table.list,
    } satisfies BackgroundShellsShape
  })
}

/** Runs a foreground command that a program may move to the background (see {@link BackgroundShellsShape.foreground}). */
export const runForeground = <A, E extends StartError, R>(request: BackgroundRequest, run: Effect.Effect<A, E, R>, ended: (result: A) => MovedEnd, live?: LiveOutput) =>
  Effect.gen(function* () {
    const shells = yield* BackgroundShells
    return yield* shells.foreground(request, run, ended, live)
  })

/** The session's background commands as an agent (a subagent) sees them: the commands it starts are its own. */
export const ownedBy = (shells: BackgroundShellsShape, owner: string): BackgroundShellsShape => ({
  ...shells,
  start: (request) => shells.start({ ...request, owner }),
  foreground: (request, run, ended, live) => shells.foreground({ ...request, owner }, run, ended, live),
})

/** Starts a command in the background (see {@link BackgroundShells}). */
export const startBackground = (request: BackgroundRequest) =>
  Effect.gen(function* () {
    const shells = yield* BackgroundShells
    return yield* shells.start(request)
  })
