import { Schema } from "effect"
import { setting, type ConfigSection } from "../section.ts"

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
      }),
      "The git tools.",
    ),
  }),
  env: { ANVIL_GIT_BACKEND: "git.backend" },
}
