import { lookup } from "./lookup.ts"
import type { ConfigShape } from "./config.ts"
import { isRecord } from "../protocol/is-record.ts"
import { ENV_KEYS, settingsOf } from "./schema.ts"
import { accepts, fromEnvironment } from "./environment-check.ts"

/** Where an effective value came from, lowest precedence first. */
export type SettingSource = "default" | "user file" | "project file" | "overrides" | "environment" | "flag"

/** One setting as anvil will use it. */
export interface EffectiveSetting {
  readonly key: string
  readonly value: unknown
  readonly source: SettingSource
  /** The file, environment variable or flag it came from. */
  readonly from?: string
}

/**
 * Every setting that has a value — from the Schema's default, the user file, the
 * project file, the environment or a flag (`flags`: dotted key → value) — with
 * where the value that wins came from.
 */
export const effectiveSettings = (config: ConfigShape, flags: Readonly<Record<string, { readonly value: unknown; readonly flag: string }>> = {}) => {
  const out: Array<EffectiveSetting> = []
  const variables = Object.entries(ENV_KEYS)
  for (const { key, fallback } of settingsOf()) {
    let found: EffectiveSetting | undefined = fallback !== undefined ? { key, value: fallback, source: "default" } : undefined
    for (const layer of config.layers) {
      const value = lookup(layer.data, key)
      if (value !== undefined && accepts(key, value)) {
        // Objects (providers, permission) merge key by key across files; the last file that sets one is named.
        const merged = isRecord(value) ? lookup(config.data, key) : value
        found = { key, value: merged, source: layer.source, ...(layer.file ? { from: layer.file } : {}) }
      } else if (value !== undefined && !isRecord(value)) {
        // A refused value still replaces a lower file's in the merge, and readers then fall back to the default.
        found = fallback !== undefined ? { key, value: fallback, source: "default" } : undefined
      }
    }
    for (const [variable, target] of variables) {
      const raw = config.env[variable]
      const parsed = target === key && raw !== undefined ? fromEnvironment(key, raw) : undefined
      if (parsed) found = { key, value: parsed.value, source: "environment", from: variable }
    }
    const flag = flags[key]
    if (flag) found = { key, value: flag.value, source: "flag", from: flag.flag }
    if (found) out.push(found)
  }
  return out
}
