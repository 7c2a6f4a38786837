import { Effect, Schema } from "effect"
import type { Tool, ToolResult } from "./definition.ts"
import { toolError } from "../protocol/tool-error.ts"

/** The tools one agent (or one CLI call) can reach, by name, title or alias, case-insensitively. */
export interface ToolRegistry {
  readonly tools: ReadonlyArray<Tool>
  readonly lookup: (name: string) => Tool | undefined
  readonly has: (name: string) => boolean
}

const key = (name: string) => name.trim().toLowerCase()

/** Builds a registry; a later tool with the same name replaces an earlier one (a plugin may override a built-in). */
export const makeRegistry = (tools: ReadonlyArray<Tool>): ToolRegistry => {
  const byName = new Map<string, Tool>()
  for (const tool of tools) byName.set(key(tool.name), tool)
  const unique = [...byName.values()]
  const index = new Map<string, Tool>()
  for (const tool of unique) {
    for (const alias of [tool.title, ...(tool.aliases ?? [])]) if (!index.has(key(alias))) index.set(key(alias), tool)
  }
  for (const tool of unique) index.set(key(tool.name), tool)
  const lookup = (name: string) => index.get(key(name))
  return { tools: unique, lookup, has: (name) => lookup(name) !== undefined }
}

/**
 * Registers a plain function as a tool (spec 003's `register_function`): it
 * takes one string and returns text. The model calls it with {"input": "…"}
 * or a bare string.
 */
export const functionTool = (
  name: string,
  description: string,
  fn: (input: string) => string | Promise<string>,
): Tool<{ readonly input: string }> => ({
  name,
  title: name,
  description,
  parameters: Schema.Struct({ input: Schema.String.annotate({ description: "The input text." }) }),
  run: ({ input }) =>
    Effect.tryPromise({
      try: async () => fn(input),
      catch: (e) => toolError("EXECUTION_ERROR", `${name} failed: ${e instanceof Error ? e.message : String(e)}`),
    }).pipe(Effect.map((text): ToolResult => ({ data: { output: text }, text }))),
})
