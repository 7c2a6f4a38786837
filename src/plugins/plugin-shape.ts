import { Predicate, Schema } from "effect"
import { HOOK_NAMES, PLUGIN_API_VERSION, type Hooks, type PluginDefinition, type ToolDefinition } from "./api.ts"

/**
 * Checks what a plugin module exports by default — one `defineTool({...})`, an
 * array of them, or `definePlugin({...})` — and says precisely what is wrong
 * otherwise. Pure: nothing of the plugin runs here.
 */

export type PluginShape =
  | { readonly ok: true; readonly plugin: PluginDefinition }
  | { readonly ok: false; readonly message: string }

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
/** How MCP servers' tools are named (mcp__SERVER__TOOL), in any case, as tools are found. */
const MCP_PREFIX = /^mcp__/i

/**
 * Why `name` cannot name a plugin tool, as the end of a sentence about it
 * (undefined when it can). `anvil plugins init` holds a plugin's name to the
 * same rule, since its skeleton's tool takes that name.
 */
export const toolNameProblem = (name: string): string | undefined => {
  if (!TOOL_NAME.test(name)) return "is not a usable name: a letter, then letters, digits, '_' or '-' (at most 64)"
  if (MCP_PREFIX.test(name)) {
    // `anvil tool mcp__…` and the model's calls send such a name to the MCP client, which looks for a server.
    const rest = name.replace(MCP_PREFIX, "").replace(/^[^A-Za-z]+/, "")
    return `starts with 'mcp__', which names the tools of MCP servers (mcp__SERVER__TOOL), so it would be taken for one; use a name without it, e.g. '${rest || "my_tool"}'`
  }
  return undefined
}

/** The problem with one tool definition, or undefined when it is usable. */
export const toolProblem = (tool: unknown, where: string): string | undefined => {
  if (!Predicate.isObject(tool)) return `${where} is not a tool definition (an object from defineTool)`
  const name = typeof tool.name === "string" ? tool.name : undefined
  const label = name ? `tool '${name}'` : where
  if (name === undefined || !TOOL_NAME.test(name)) {
    return `${where}: name must be a letter followed by letters, digits, '_' or '-' (at most 64), got ${JSON.stringify(tool.name)}`
  }
  const reserved = toolNameProblem(name)
  if (reserved) return `${where}: the name '${name}' ${reserved}`
  if (typeof tool.description !== "string" || tool.description.trim() === "") return `${label}: description must be a non-empty string`
  if (!Schema.isSchema(tool.parameters)) {
    return `${label}: parameters is not a Schema; use Schema.Struct({ ... }) from "effect"`
  }
  if (!Predicate.isObject((tool.parameters as { fields?: unknown }).fields)) {
    return `${label}: parameters must be an object schema, Schema.Struct({ ... })`
  }
  if (typeof tool.run !== "function") return `${label}: run must be a function`
  if (tool.readOnly !== undefined && typeof tool.readOnly !== "boolean") return `${label}: readOnly must be true or false`
  return undefined
}

/** The problem with a hooks object, or undefined. */
export const hooksProblem = (hooks: unknown): string | undefined => {
  if (hooks === undefined) return undefined
  if (!Predicate.isObject(hooks)) return "hooks must be an object of hook functions"
  for (const [key, fn] of Object.entries(hooks)) {
    if (!(HOOK_NAMES as ReadonlyArray<string>).includes(key)) return `unknown hook '${key}' (known: ${HOOK_NAMES.join(", ")})`
    if (typeof fn !== "function") return `hook '${key}' must be a function`
  }
  return undefined
}

const toolsProblem = (tools: unknown): string | undefined => {
  if (tools === undefined) return undefined
  if (!Array.isArray(tools)) return "tools must be an array of defineTool(...) values"
  for (let i = 0; i < tools.length; i++) {
    const problem = toolProblem(tools[i], `tools[${i}]`)
    if (problem) return problem
  }
  return undefined
}

/** Reads a module's default export as a plugin definition. */
export const pluginShape = (module: Record<string, unknown>): PluginShape => {
  const value = module.default
  if (value === undefined) {
    // opencode's plugins export functions by name (`export const MyPlugin = async (ctx) => ({ "tool.execute.before": … })`).
    const named = Object.entries(module).filter(([, v]) => typeof v === "function").map(([k]) => k)
    const opencode = named.length > 0 ? ` (it exports ${named.slice(0, 3).join(", ")} by name, as an opencode plugin does: anvil does not run opencode's plugin API; its hooks are definePlugin's, see 'Writing a plugin' in the README)` : ""
    return { ok: false, message: `the module has no default export; export default defineTool({...}), an array of tools, or definePlugin({...})${opencode}` }
  }
  if (Array.isArray(value)) {
    const problem = toolsProblem(value)
    return problem ? { ok: false, message: problem } : { ok: true, plugin: { api: PLUGIN_API_VERSION, tools: value as Array<ToolDefinition> } }
  }
  if (!Predicate.isObject(value)) return { ok: false, message: `the default export is a ${typeof value}, not a tool or plugin definition` }
  if (typeof (value as { then?: unknown }).then === "function") {
    return { ok: false, message: "the default export is a Promise, not a tool or plugin definition; await it at the top level (export default await …)" }
  }
  const looksLikePlugin = "api" in value || "tools" in value || "hooks" in value || "setup" in value
  if (!looksLikePlugin) {
    const problem = toolProblem(value, "the default export")
    return problem ? { ok: false, message: problem } : { ok: true, plugin: { api: PLUGIN_API_VERSION, tools: [value as unknown as ToolDefinition] } }
  }
  if (value.api !== PLUGIN_API_VERSION) {
    return {
      ok: false,
      message: `the plugin is written for api ${JSON.stringify(value.api)}; this anvil speaks api ${PLUGIN_API_VERSION} (set api: ${PLUGIN_API_VERSION} in definePlugin, or update anvil)`,
    }
  }
  if (value.name !== undefined && typeof value.name !== "string") return { ok: false, message: "name must be a string" }
  if (value.setup !== undefined && typeof value.setup !== "function") return { ok: false, message: "setup must be a function" }
  const problem = toolsProblem(value.tools) ?? hooksProblem(value.hooks)
  return problem ? { ok: false, message: problem } : { ok: true, plugin: value as unknown as PluginDefinition }
}

/** The hook names a plugin defines, in the documented order. */
export const hookNames = (hooks: Hooks | undefined): ReadonlyArray<string> => HOOK_NAMES.filter((h) => hooks?.[h] !== undefined)
