import { Schema } from "effect"
import { Count, Names, setting, type ConfigSection } from "../section.ts"

/** `plugins.hook_timeout_ms` when no file sets it. */
export const DEFAULT_HOOK_TIMEOUT_MS = 5_000
/** `plugins.load_timeout_ms` when no file sets it. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000
/** `plugins.call_timeout_ms` when no file sets it: ten minutes, as an MCP call's deadline. */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000

/**
 * The entries of a `plugins.paths` value (one string or a list), trimmed: what discovery loads and what the
 * trust check compares between the user's and the project's lists are read by this one rule (and so are the
 * entries of `skills.paths`, whose lists add up the same way).
 */
export const pluginPathEntries = (value: unknown): ReadonlyArray<string> =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((p): p is string => typeof p === "string").map((p) => p.trim())

/** Where plugins come from and how long they may take. */
export const pluginsSection: ConfigSection = {
  fields: () => ({
    plugins: setting(
      Schema.Struct({
        paths: setting(Schema.Union([Schema.String, Names()]), "Extra plugin files or folders (relative to the root, absolute or ~/…).", []),
        disabled: setting(Names(), "Plugin names not loaded.", []),
        load_timeout_ms: setting(Count(), "How long one plugin may take to load.", DEFAULT_LOAD_TIMEOUT_MS),
        hook_timeout_ms: setting(Count(), "How long one hook may run.", DEFAULT_HOOK_TIMEOUT_MS),
        call_timeout_ms: setting(Count(), "How long one call of a plugin's tool may run before it is cancelled (TIMEOUT).", DEFAULT_CALL_TIMEOUT_MS),
        options: setting(Schema.Record(Schema.String, Schema.Unknown), "Options handed to each plugin, by plugin name."),
      }),
      "Plugins: tools and hooks written against anvil/plugin.",
    ),
  }),
}
