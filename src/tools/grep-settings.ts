import { Effect } from "effect"
import { Config } from "../config/config.ts"
import { SEARCH_DEFAULTS } from "../config/sections/search.ts"
import { GREP_DEFAULTS } from "../config/sections/tools.ts"
import { searchHidden } from "./hidden-search.ts"

/** grep's settings: the engine and rg to run, the limits, the folders skipped and what the permission rules hide. */
export const grepSettings = Effect.gen(function* () {
  const config = yield* Config
  const get = (key: keyof typeof GREP_DEFAULTS) => config.count(`tools.grep.${key}`, GREP_DEFAULTS[key])
  const limit = get("max_matches_limit")
  const engine = config.get("tools.grep.engine", "auto")
  const rgPath = config.env.ANVIL_RG_PATH ?? config.get("tools.grep.rg_path", "")
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(config.env)) if (typeof v === "string") env[k] = v
  return {
    engine: engine === "builtin" ? ("builtin" as const) : ("auto" as const),
    rgPath: rgPath === "" ? undefined : rgPath,
    /** rg's environment: anvil's own. */
    rgEnv: env,
    maxMatchesLimit: limit,
    defaultMaxMatches: Math.min(get("default_max_matches"), limit),
    shownMatches: get("shown_matches"),
    timeoutMs: get("timeout_ms"),
    maxLineLength: get("max_line_length"),
    maxContext: get("max_context"),
    maxStoredLines: get("max_stored_lines"),
    maxEntries: get("max_entries"),
    /** What the permission rules hide from grep (see permission/hidden-paths.ts). */
    hidden: yield* searchHidden("grep"),
    ignoredDirs: new Set(
      config.get("search.default_ignore", SEARCH_DEFAULTS.default_ignore as ReadonlyArray<unknown>).filter((n): n is string => typeof n === "string"),
    ),
  }
})

export type GrepSettings = Effect.Success<typeof grepSettings>
