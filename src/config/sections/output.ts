import { Schema } from "effect"
import { Count, setting, type ConfigSection } from "../section.ts"

/** The output budget of one tool result, and how long saved outputs are kept. */
export const OUTPUT_DEFAULTS = { maxLines: 2000, maxBytes: 51200, direction: "head", retentionDays: 7 } as const

export const outputSection: ConfigSection = {
  fields: () => ({
    output: setting(
      Schema.Struct({
        max_lines: setting(Count(), "Lines of one result's text before it is cut and saved.", OUTPUT_DEFAULTS.maxLines),
        max_bytes: setting(Count(), "Bytes of one result's text before it is cut and saved.", OUTPUT_DEFAULTS.maxBytes),
        direction: setting(Schema.Literals(["head", "tail", "head_tail"]), "Which part of a cut result is kept.", OUTPUT_DEFAULTS.direction),
        dir: setting(Schema.String, "Where full outputs are saved (relative to the root).", ".anvil/tool-output"),
        retention_days: setting(Count(), "Saved outputs older than this are deleted.", OUTPUT_DEFAULTS.retentionDays),
      }),
      "Truncation of tool results and the folder full outputs are saved in.",
    ),
  }),
  env: {
    TOOL_OUTPUT_MAX_LINES: "output.max_lines",
    TOOL_OUTPUT_MAX_BYTES: "output.max_bytes",
    TOOL_OUTPUT_TRUNCATE_DIRECTION: "output.direction",
    TOOL_OUTPUT_DIR: "output.dir",
    TOOL_OUTPUT_RETENTION_DAYS: "output.retention_days",
  },
}
