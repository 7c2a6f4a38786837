import { Schema } from "effect"
import { DEFAULT_IGNORED_DIRS } from "../../workspace/ignore-rules.ts"
import { Names, setting, type ConfigSection } from "../section.ts"

/** Defaults for `search.*`. */
export const SEARCH_DEFAULTS = { default_ignore: DEFAULT_IGNORED_DIRS } as const

/** What glob, grep and list skip. */
export const searchSection: ConfigSection = {
  fields: () => ({
    search: setting(
      Schema.Struct({
        default_ignore: setting(Names(), "Folder names glob, grep and list skip unless include_ignored (replaces the built-in list).", SEARCH_DEFAULTS.default_ignore),
      }),
      "Settings shared by the search tools.",
    ),
  }),
}
