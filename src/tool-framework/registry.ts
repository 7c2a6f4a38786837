import { Effect, Schema } from "effect"
import type { Tool, ToolResult } from "./definition.ts"
import { toolError } from "../protocol/tool-error.ts"
import { CLAUDE_TOOLS } from "./claude-tools.ts"
import { unwrapToolName } from "./model-tool-name.ts"

/** The tools one agent (or one CLI call) can reach, by name, title, alias or Claude Code's name, case-insensitively. */
export interface ToolRegistry {
  readonly tools: ReadonlyArray<Tool>
  readonly lookup: (name: string) => Tool | undefined
  readonly has: (name: string) => boolean
  /**
   * Why a tool that exists but is not in this registry is refused (a write tool
   * in plan mode): the call gets that reason instead of "unknown tool".
   */
  readonly withheld?: (name: string) => string | undefined
}

const key = (name: string) => name.trim().toLowerCase()

/** A model's wrapped name (`functions.read`) looked up as the name inside it. */
const unwrapped = (name: string, find: (name: string) => Tool | undefined): Tool | undefined => {
  const inner = unwrapToolName(name)
  return inner === undefined ? undefined : find(inner)
}

/**
 * Tools that come and go while a session runs (an MCP server's tools join
 * when it connects). `tools` is read again for every model request; `lookup`
 * may answer names `tools` does not list yet (a server still starting).
 */
export interface ToolSource {
  readonly tools: () => ReadonlyArray<Tool>
  readonly lookup: (name: string) => Tool | undefined
}

/**
 * Builds a registry; a later tool with the same name replaces an earlier one
 * (a plugin may override a built-in). Fixed tools come first; `sources` add
 * the tools they have at the moment they are asked.
 */
export const makeRegistry = (
  fixed: ReadonlyArray<Tool>,
  sources: ReadonlyArray<ToolSource> = [],
  withheld?: (name: string) => string | undefined,
): ToolRegistry => {
  const base = withheld ? { ...makeFixedRegistry(fixed), withheld } : makeFixedRegistry(fixed)
  if (sources.length === 0) return base
  const find = (name: string) => base.lookup(name) ?? sources.reduce<Tool | undefined>((found, s) => found ?? s.lookup(name), undefined)
  const lookup = (name: string) => find(name) ?? unwrapped(name, find)
  return {
    get tools() {
      const names = new Set(base.tools.map((t) => key(t.name)))
      return [...base.tools, ...sources.flatMap((s) => s.tools()).filter((t) => !names.has(key(t.name)))]
    },
    lookup,
    has: (name) => lookup(name) !== undefined,
    ...(withheld ? { withheld } : {}),
  }
}

const makeFixedRegistry = (tools: ReadonlyArray<Tool>): ToolRegistry => {
  const byName = new Map<string, Tool>()
  for (const tool of tools) byName.set(key(tool.name), tool)
  const unique = [...byName.values()]
  const index = new Map<string, Tool>()
  for (const tool of unique) {
    for (const alias of [tool.title, ...(tool.aliases ?? [])]) if (!index.has(key(alias))) index.set(key(alias), tool)
  }
  // Claude Code's names ("WebFetch", "Task") reach their counterparts whatever a tool's title says; the runner translates the fields.
  for (const claude of CLAUDE_TOOLS) {
    const tool = byName.get(key(claude.anvil))
    if (tool && !index.has(key(claude.claude))) index.set(key(claude.claude), tool)
  }
  for (const tool of unique) index.set(key(tool.name), tool)
  const find = (name: string) => index.get(key(name))
  const lookup = (name: string) => find(name) ?? unwrapped(name, find)
  return { tools: unique, lookup, has: (name) => lookup(name) !== undefined }
}

/**
 * Registers a plain function as a tool: it
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
