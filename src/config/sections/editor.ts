import { Schema } from "effect"
import { setting, type ConfigSection } from "../section.ts"

/** Keys for editors: `$schema` names the JSON Schema `anvil config schema` prints, so keys complete. */
export const editorSection: ConfigSection = {
  fields: () => ({
    $schema: setting(Schema.String, "The JSON Schema of this file (anvil config schema > anvil.schema.json)."),
  }),
}
