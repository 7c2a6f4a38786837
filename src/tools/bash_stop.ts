import { Effect, Schema } from "effect"
import { BackgroundShells } from "../shell/background-shells.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./bash_stop.md" with { type: "text" }
import { stoppedResult } from "./bash-background.ts"
import { withBackgroundErrors } from "./shell-errors.ts"

/** bash_stop: ends a background command and everything it started. */
export const bashStopTool = defineTool({
  name: "bash_stop",
  requires: [BackgroundShells],
  title: "KillShell",
  description,
  aliases: ["TaskStop", "KillBash", "bash_kill", "kill_shell"],
  parameterAliases: { shell_id: "id", task_id: "id", bash_id: "id" },
  permission: "allow",
  parameters: Schema.Struct({
    id: Schema.String.annotate({ description: "The id the background Bash call gave." }),
  }),
  run: (params) =>
    Effect.gen(function* () {
      const shells = yield* BackgroundShells
      const running = shells.list().some((s) => s.id === params.id.trim() && s.status === "running")
      const shell = yield* withBackgroundErrors(shells.stop(params.id))
      return stoppedResult(shell, running)
    }),
})
