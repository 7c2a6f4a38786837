import { Schema } from "effect"
import { setting, type ConfigSection } from "../section.ts"

const Level = Schema.Literals(["allow", "ask", "deny"])

/** Per-tool permission: a level, or patterns (command, path, host or name) → level, `"*"` for the rest. */
export const permissionSection: ConfigSection = {
  fields: () => ({
    permission: setting(
      Schema.Record(Schema.String, Schema.Union([Level, Schema.Record(Schema.String, Level)])),
      'Per tool: "allow", "ask", "deny", or patterns mapped to those levels.',
    ),
  }),
}
