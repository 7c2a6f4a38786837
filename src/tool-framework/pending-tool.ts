import { Effect } from "effect"
import type { Tool } from "./definition.ts"
import type { ToolRegistry } from "./registry.ts"
import { ToolError } from "../protocol/tool-error.ts"

/**
 * The tool a call runs. A stand-in that is not ready (a tool of an MCP server still starting, started again, or
 * reading its changed tool list) is waited for, then the name is looked up again: the hooks and the permission
 * rules then judge the tool that will run, under its own name, never the stand-in under the name the call gave
 * (`mcp__Tiny__Echo` meets the rules of `mcp__tiny__echo`). A failed wait is the call's error.
 */
export const resolveTool = (
  registry: ToolRegistry,
  name: string,
  found: Tool | undefined,
  wait: <A, E>(step: Effect.Effect<A, E>) => Effect.Effect<A, E>,
): Effect.Effect<Tool | undefined, ToolError> => {
  const ready = found?.ready
  if (ready === undefined) return Effect.succeed(found)
  return Effect.gen(function* () {
    yield* wait(ready())
    const tool = registry.lookup(name)
    // Ready once is ready: a stand-in again means its server went away meanwhile.
    if (tool?.ready !== undefined) {
      return yield* new ToolError({ code: "EXECUTION_ERROR", message: `${name} is not available: its server went away while the call waited for it. Call it again.`, retryable: true })
    }
    return tool
  })
}
