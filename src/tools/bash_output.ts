import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { BASH_DEFAULTS, READ_DEFAULTS } from "../config/sections/tools.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { invalidParam } from "../protocol/tool-error.ts"
import { BackgroundShells } from "../shell/background-shells.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./bash_output.md" with { type: "text" }
import { outputResult } from "./bash-background.ts"
import { withBackgroundErrors } from "./shell-errors.ts"

/** The longest a call may wait for a command to end. */
const MAX_WAIT_MS = 600_000
/** Room left in the framework's budget for the state lines and hints. */
const FRAME_BYTES = 1024
const FRAME_LINES = 20

/** bash_output: what a background command printed since the last read, and whether it still runs. */
export const bashOutputTool = defineTool({
  name: "bash_output",
  requires: [BackgroundShells],
  title: "BashOutput",
  description,
  aliases: ["TaskOutput", "bash_status"],
  parameterAliases: { bash_id: "id", shell_id: "id", task_id: "id", timeout: "timeout_ms" },
  permission: "allow",
  readOnly: true,
  parameters: Schema.Struct({
    id: Schema.String.annotate({ description: "The id the background Bash call gave." }),
    filter: Schema.optionalKey(Schema.String.annotate({ description: "Regular expression: only new lines it matches are shown (the others are passed over)." })),
    block: Schema.optionalKey(Schema.Boolean.annotate({ description: "true: wait for the command to end first (at most timeout_ms)." })),
    timeout_ms: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_WAIT_MS })).annotate({ description: "How long block waits; default 30000." })),
  }),
  run: (params) =>
    Effect.gen(function* () {
      const shells = yield* BackgroundShells
      const config = yield* Config
      const settings = yield* OutputSettings
      let filter: RegExp | undefined
      if (params.filter !== undefined) {
        try {
          filter = new RegExp(params.filter)
        } catch (e) {
          return yield* invalidParam("filter", `not a valid regular expression: ${(e as Error).message}`)
        }
      }
      const budget = Math.max(512, Math.min(config.count("tools.bash.max_output_chars", BASH_DEFAULTS.max_output_chars), settings.maxBytes - FRAME_BYTES))
      const out = yield* withBackgroundErrors(
        shells.read(params.id, {
          filter,
          waitMs: params.block === true ? (params.timeout_ms ?? 30_000) : 0,
          budgetBytes: budget,
          budgetLines: Math.max(20, settings.maxLines - FRAME_LINES),
        }),
      )
      return outputResult(out, config.count("tools.read.max_line_length", READ_DEFAULTS.max_line_length), config.count("tools.read.max_limit", READ_DEFAULTS.max_limit))
    }),
})
