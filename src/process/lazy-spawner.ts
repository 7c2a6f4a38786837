import { Effect, Layer } from "effect"
import type { FileSystem } from "effect/FileSystem"
import type { Path } from "effect/Path"
import { ChildProcessSpawner, make } from "effect/process/ChildProcessSpawner"

/**
 * @effect/platform-node's ChildProcessSpawner, with its module (and with it
 * node:child_process and Node's streams, several milliseconds of every start)
 * imported on the first spawn: most tool calls start no process through it.
 */
export const makeLazySpawner = Effect.gen(function* () {
  const context = yield* Effect.context<FileSystem | Path>()
  let real: Promise<ChildProcessSpawner["Service"]> | undefined
  const load = () =>
    (real ??= import("@effect/platform-node/NodeChildProcessSpawner").then((m) =>
      Effect.runPromise(Effect.service(ChildProcessSpawner).pipe(Effect.provide(m.layer), Effect.provide(context))),
    ))
  return make((command) => Effect.flatMap(Effect.promise(load), (spawner) => spawner.spawn(command)))
})

/** The spawner's service key (the runtime imports this module only when a tool spawns). */
export { ChildProcessSpawner }

/** {@link makeLazySpawner} as a layer. */
export const lazyChildProcessSpawner: Layer.Layer<ChildProcessSpawner, never, FileSystem | Path> = Layer.effect(ChildProcessSpawner, makeLazySpawner)
