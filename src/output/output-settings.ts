import { Context, Effect, Layer } from "effect"
import { Path } from "effect/Path"
import { existsSync, realpathSync } from "node:fs"
import { dirname, sep } from "node:path"
import { Config, type ConfigShape } from "../config/config.ts"
import { isRecord } from "../protocol/is-record.ts"
import { plannedStateDir } from "../workspace/state-dir.ts"
import type { TruncateDirection } from "./truncate.ts"
import { OUTPUT_DEFAULTS } from "../config/sections/output.ts"

/** The truncation and spill settings, after config and environment. */
export interface OutputSettingsShape {
  readonly maxLines: number
  readonly maxBytes: number
  readonly direction: TruncateDirection
  /** Absolute spill folder. */
  readonly dir: string
  /**
   * Set when the spill folder is anvil's own `.anvil/tool-output` for this
   * project root (not configured): it is then used only while it is a real
   * folder inside the root (else the private cache folder).
   */
  readonly stateRoot?: string
  /** The environment the private state folder is found with (XDG_CACHE_HOME, HOME). */
  readonly stateEnv?: Readonly<Record<string, string | undefined>>
  readonly retentionDays: number
}


/** `output.dir` as the project's own anvil.json sets it (the last project layer that does), if it does. */
const projectValue = (config: ConfigShape): unknown => {
  let value: unknown
  for (const layer of config.layers) {
    const output = layer.data.output
    if (layer.source === "project file" && isRecord(output) && output.dir !== undefined) value = output.dir
  }
  return value
}

/** Whether `dir` lies inside `root` with no link on the way (judged by the part of it that exists). */
const realInside = (dir: string, root: string): boolean => {
  const top = realOr(root)
  let at = dir
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at)
  const real = realOr(at)
  return real === at && (real === top || real.startsWith(`${top}${sep}`)) && (dir === top || dir.startsWith(`${top}${sep}`))
}

const realOr = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

// The same rule as the settings' Schema (a finite number of at least 1): a refused value is reported
// once by Config (environmentWarnings) and the file's value or the default applies.
const positive = (raw: string | undefined): number | undefined => {
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : undefined
}
const direction = (raw: string | undefined): TruncateDirection | undefined =>
  raw === "head" || raw === "tail" || raw === "head_tail" ? raw : undefined

export class OutputSettings extends Context.Service<OutputSettings, OutputSettingsShape>()("anvil/OutputSettings") {
  /**
   * Environment (TOOL_OUTPUT_*) over anvil.json's `output` section over the
   * defaults. The spill folder defaults to `.anvil/tool-output` under the root.
   */
  static make = (root: string) =>
    Effect.gen(function* () {
      const config = yield* Config
      const path = yield* Path
      const env = config.env
      const configured = env.TOOL_OUTPUT_DIR ?? config.get("output.dir", "")
      // The tools may reach the spill folder: one the project's own anvil.json names is used only while it is a
      // real folder inside the project (a repository could name ~/.ssh, or a link in the tree to it).
      const dir = env.TOOL_OUTPUT_DIR === undefined && configured !== "" && configured === projectValue(config) && !realInside(path.resolve(root, configured), root) ? "" : configured
      return {
        maxLines: positive(env.TOOL_OUTPUT_MAX_LINES) ?? config.count("output.max_lines", OUTPUT_DEFAULTS.maxLines),
        maxBytes: positive(env.TOOL_OUTPUT_MAX_BYTES) ?? config.count("output.max_bytes", OUTPUT_DEFAULTS.maxBytes),
        direction:
          direction(env.TOOL_OUTPUT_TRUNCATE_DIRECTION) ??
          direction(config.get("output.direction", "")) ??
          OUTPUT_DEFAULTS.direction,
        ...(dir === "" ? { dir: plannedStateDir(root, "tool-output", env), stateRoot: root, stateEnv: env } : { dir: path.resolve(root, dir) }),
        retentionDays:
          positive(env.TOOL_OUTPUT_RETENTION_DAYS) ?? config.count("output.retention_days", OUTPUT_DEFAULTS.retentionDays),
      }
    })

  /** {@link OutputSettings.make} as a layer. */
  static fromConfig = (root: string) => Layer.effect(OutputSettings, OutputSettings.make(root))
}
