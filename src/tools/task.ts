import { Effect, Schema } from "effect"
import { defineTool } from "../tool-framework/definition.ts"
import { SubagentRunner } from "../tool-framework/subagent.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import description from "./task.md" with { type: "text" }

/** task: runs a subagent with its own history and a restricted tool set; returns its summary. */
export const taskTool = defineTool({
  name: "task",
  requires: [SubagentRunner],
  title: "Task",
  description,
  aliases: ["subagent", "agent"],
  parameterAliases: { prompt: "objective", description: "objective", subagent_type: "agent" },
  // The subagent only reads, so task calls may run side by side.
  readOnly: true,
  parameters: Schema.Struct({
    objective: Schema.String.annotate({ description: "A complete brief." }),
    agent: Schema.optionalKey(Schema.String.annotate({ description: 'Default "explore" (read-only).' })),
  }),
  run: ({ objective, agent: given = "explore" }, call) =>
    Effect.gen(function* () {
      const runner = yield* SubagentRunner
      if (objective.trim() === "") return yield* Effect.fail(invalidParam("objective", "must not be empty"))
      // A plugin's agent is `plugin:agent`; its plain name reaches it when no other agent has that name.
      const named = runner.agents.includes(given) ? [given] : runner.agents.filter((a) => a.slice(a.lastIndexOf(":") + 1) === given)
      if (runner.agents.length > 0 && named.length !== 1) {
        const why = named.length > 1 ? `'${given}' names several subagents (${named.join(", ")}); give the full name` : `unknown subagent '${given}' (available: ${runner.agents.join(", ")})`
        return yield* Effect.fail(invalidParam("agent", why))
      }
      const agent = named[0] ?? given
      const report = yield* runner.run({ agent, objective, parentCallId: call.callId })
      if (report.status === "error" && report.summary.trim() === "") {
        return yield* Effect.fail(toolError("EXECUTION_ERROR", `The ${agent} subagent failed: ${report.error ?? "no report"}`))
      }
      const partial = report.status !== "success"
      const note = partial ? `\n\n(The subagent stopped early: ${report.error ?? report.status}. Its report may be incomplete.)` : ""
      return {
        header: `Task: ${agent}`,
        ...(partial ? { status: "partial" as const } : {}),
        data: {
          agent,
          summary: report.summary,
          status: report.status,
          ...(partial ? { truncated: false, stopped: report.error ?? report.status } : {}),
        },
        text: `${report.summary.trim() || "(the subagent gave no report)"}${note}`,
        stats: {
          steps: report.steps,
          tool_calls: report.tool_calls,
          input_tokens: report.input_tokens,
          output_tokens: report.output_tokens,
        },
        ...(partial
          ? { hints: [{ action: "Task", priority: "medium" as const, args: { agent, objective: "<a narrower objective>" } }] }
          : {}),
      }
    }),
})
