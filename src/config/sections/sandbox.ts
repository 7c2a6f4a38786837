import { setting, Names, type ConfigSection } from "../section.ts"
import { Schema } from "effect"

/** Where tools may reach outside the project root. */
export const sandboxSection: ConfigSection = {
  fields: {
    sandbox: setting(
      Schema.Struct({
        allow: setting(Names, "Extra folders tools may reach (the output folder always is).", []),
      }),
      "Folders outside the project that tools may use.",
    ),
  },
}
