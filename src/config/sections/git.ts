import { Schema } from "effect"
import { Count, setting, type ConfigSection } from "../section.ts"

/** The git settings' defaults, for the code that reads them. */
export const GIT_DEFAULTS = {
  /** Two minutes, as a bash command's default time limit. */
  hook_timeout_ms: 120_000,
} as const

/** How the git tools reach the repository. */
export const gitSection: ConfigSection = {
  fields: () => ({
    git: setting(
      Schema.Struct({
        backend: setting(
          Schema.Literals(["auto", "cli", "isomorphic"]),
          "auto or cli: the git command line when installed; isomorphic: the built-in implementation.",
          "auto",
        ),
        hook_timeout_ms: setting(
          Count(),
          "How long git_commit lets a repository hook (pre-commit, commit-msg, …) run before it is stopped and nothing is committed.",
          GIT_DEFAULTS.hook_timeout_ms,
        ),
      }),
      "The git tools.",
    ),
  }),
  env: { ANVIL_GIT_BACKEND: "git.backend" },
}
