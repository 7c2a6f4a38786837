import { Effect, Layer } from "effect"
import type { FileSystem } from "effect/FileSystem"
import type { Path } from "effect/Path"
import { OutputSettings } from "./output-settings.ts"
import { SpillStore } from "./spill-store.ts"

/**
 * Retention for a one-call process (`anvil tool`): no sweep at start, where
 * every call would pay for it, but one after this process's first spill. The
 * store only grows by spills, so it stays as bounded as with a sweep at start.
 * Wraps the SpillStore it is given. The sweep's module is loaded only at that
 * spill: a call that spills nothing never evaluates it.
 */
export const retentionOnSpill = Effect.gen(function* () {
  const store = yield* SpillStore
  const { dir, retentionDays } = yield* OutputSettings
  const platform = yield* Effect.context<FileSystem | Path>()
  let swept = false
  const sweepOnce = Effect.suspend(() => {
    if (swept) return Effect.void
    swept = true
    return Effect.promise(() => import("./retention.ts")).pipe(
      Effect.flatMap(({ sweepSpills }) => sweepSpills(dir, retentionDays)),
      Effect.asVoid,
      Effect.provideContext(platform),
    )
  })
  return {
    dir: store.dir,
    spill: (toolTitle: string, value: unknown, text?: string, key?: string) => store.spill(toolTitle, value, text, key).pipe(Effect.tap(() => sweepOnce)),
    // A stream removed again (a command's output short enough to show whole) did not grow the store.
    openStream: (toolTitle: string, extension: string) =>
      store.openStream(toolTitle, extension).pipe(
        Effect.map((stream) => {
          let removed = false
          return {
            ...stream,
            remove: Effect.andThen(Effect.sync(() => (removed = true)), stream.remove),
            close: Effect.andThen(stream.close, Effect.suspend(() => (removed ? Effect.void : sweepOnce))),
          }
        }),
      ),
  }
})

export const RetentionOnSpill = Layer.effect(SpillStore, retentionOnSpill)
