import { Clock, Context, Effect, Layer } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { ensureStateDir } from "../workspace/state-dir.ts"
import { OutputSettings } from "./output-settings.ts"

/** Keeps full tool outputs on disk when what reaches the model is cut (spec 002 §4). */
export interface SpillStoreShape {
  /** The absolute spill folder. */
  readonly dir: string
  /**
   * Writes `content` as `tool_<YYYYMMDD_HHMMSS>_<Tool>.json` (UTC) and returns
   * its absolute path. Never overwrites: a second spill in the same second gets
   * a `_2`, `_3`… suffix.
   */
  readonly spill: (toolTitle: string, content: string) => Effect.Effect<string, Error>
}

/** Spill file names this store owns; retention deletes nothing else. */
export const SPILL_NAME = /^tool_\d{8}_\d{6}_[A-Za-z0-9_.-]+\.json$/

const pad = (n: number, w = 2) => String(n).padStart(w, "0")
export const spillStamp = (ms: number): string => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}_${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
}

export class SpillStore extends Context.Service<SpillStore, SpillStoreShape>()("anvil/SpillStore") {
  static layer = Layer.effect(
    SpillStore,
    Effect.gen(function* () {
      const fs = yield* FileSystem
      const path = yield* Path
      const { dir } = yield* OutputSettings
      const platform = yield* Effect.context<FileSystem | Path>()
      const spill = (toolTitle: string, content: string) =>
        Effect.gen(function* () {
          yield* ensureStateDir(dir)
          const stamp = spillStamp(yield* Clock.currentTimeMillis)
          const safe = toolTitle.replace(/[^A-Za-z0-9_.-]/g, "_") || "Tool"
          const bytes = new TextEncoder().encode(content)
          for (let n = 1; ; n++) {
            const file = path.join(dir, `tool_${stamp}_${safe}${n === 1 ? "" : `_${n}`}.json`)
            const written = yield* fs.writeFile(file, bytes, { flag: "wx" }).pipe(Effect.result)
            if (written._tag === "Success") return file
            if (written.failure.reason._tag !== "AlreadyExists") return yield* Effect.fail(written.failure as Error)
          }
        }).pipe(Effect.provideContext(platform))
      return { dir, spill }
    }),
  )
}
