import type { ConfigShape } from "../config/config.ts"
import type { ModelToolSpec } from "../llm/model.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { parameterJsonSchema } from "../tool-framework/json-schema.ts"
import type { ToolRegistry } from "../tool-framework/registry.ts"
import { builtinToolEntries } from "../tools/builtin.ts"
import { LOAD_TOOLS, loaderDescription } from "../tools/load_tools.ts"
import type { HistoryItem } from "./history.ts"

/**
 * Which tools a model request carries. Every request pays for the schemas it
 * offers, so rarely used tools are offered on demand: named one line each in
 * load_tools' description, and added to the following requests once loaded
 * (or once called by name: a call to any registered tool runs, offered or not).
 */
export interface ToolOffer {
  /** false: every tool in every request (anvil.json `tools.on_demand`). */
  readonly onDemand: boolean
  /** Tools always offered (lowercase names): `tools.always_offer`, tools a host named explicitly. */
  readonly always: ReadonlySet<string>
  /** MCP and plugin tools are offered directly while their schemas together take at most this many bytes. */
  readonly extensionBudget: number
}

/** Built-in tools a coding turn rarely needs: offered on demand. */
export const ON_DEMAND_BUILTINS: ReadonlySet<string> = new Set([
  "git_status",
  "git_diff",
  "git_log",
  "git_add",
  "git_commit",
  "fetch",
  "lsp_diagnostics",
  "lsp_definition",
  "lsp_hover",
  "calculator",
  "todoread",
  "multiedit",
  "bash_output",
  "bash_stop",
])

const BUILTIN_NAMES: ReadonlySet<string> = new Set(builtinToolEntries.map((e) => e.names[0]!.toLowerCase()))

/** Below this many bytes of schemas in all, every tool is offered: loading would save too little to be worth a step. */
export const ON_DEMAND_FLOOR = 12_000

export const DEFAULT_OFFER: ToolOffer = { onDemand: true, always: new Set(), extensionBudget: 6_000 }

// Every request offers the same specs: building the JSON Schemas each time cost about 0.6 ms a request.
// A tool definition never changes, so its spec is made once (providers only read it).
const specCache = new WeakMap<Tool, ModelToolSpec>()

/**
 * A tool as the model is offered it. The system prompt says once that a call
 * takes only the parameters its schema lists, so the top-level
 * `additionalProperties: false` (the decoder's rule, kept in `anvil tools
 * --json`) is not repeated in every schema of every request.
 */
export const toolSpec = (tool: Tool): ModelToolSpec => {
  let spec = specCache.get(tool)
  if (!spec) {
    const schema = parameterJsonSchema(tool)
    const { additionalProperties, ...parameters } = schema
    spec = { name: tool.name, description: tool.description.trim(), parameters: additionalProperties === false ? parameters : schema }
    specCache.set(tool, spec)
  }
  return spec
}

const sizes = new WeakMap<ModelToolSpec, number>()
const specBytes = (spec: ModelToolSpec) => {
  let n = sizes.get(spec)
  if (n === undefined) sizes.set(spec, (n = JSON.stringify(spec).length))
  return n
}

/**
 * Names of the tools the conversation has loaded (load_tools' `data.loaded`)
 * or called, added to `into` (kept by the caller across compactions).
 */
export const collectLoaded = (items: ReadonlyArray<HistoryItem>, registry: ToolRegistry, into: Set<string>): Set<string> => {
  for (const item of items) {
    if (item.type !== "tool") continue
    const tool = registry.lookup(item.name)
    if (!tool) continue
    if (tool.name !== LOAD_TOOLS) {
      into.add(tool.name.toLowerCase())
      continue
    }
    const loaded = item.metadata.tool_raw_envelope.data.loaded
    if (Array.isArray(loaded)) for (const name of loaded) if (typeof name === "string") into.add(name.toLowerCase())
  }
  return into
}

/**
 * The specs of one request: the tools offered directly, the loaded ones, and
 * load_tools with the catalogue of the rest (left out when nothing is on demand).
 */
export const offeredSpecs = (tools: ReadonlyArray<Tool>, loaded: ReadonlySet<string>, offer: ToolOffer): ReadonlyArray<ModelToolSpec> => {
  const specs = new Map(tools.map((t) => [t, toolSpec(t)] as const))
  const loader = tools.find((t) => t.name === LOAD_TOOLS)
  const others = tools.filter((t) => t !== loader)
  const all = () => others.map((t) => specs.get(t)!)
  if (!offer.onDemand || !loader) return all()
  if (others.reduce((n, t) => n + specBytes(specs.get(t)!), 0) < ON_DEMAND_FLOOR) return all()
  const extensions = others.filter((t) => !BUILTIN_NAMES.has(t.name.toLowerCase()))
  const extensionsFit = extensions.reduce((n, t) => n + specBytes(specs.get(t)!), 0) <= offer.extensionBudget
  const onDemand = (t: Tool) => {
    const name = t.name.toLowerCase()
    if (offer.always.has(name) || loaded.has(name)) return false
    return BUILTIN_NAMES.has(name) ? ON_DEMAND_BUILTINS.has(name) : !extensionsFit
  }
  const later = others.filter(onDemand)
  if (later.length === 0) return all()
  return [...others.filter((t) => !onDemand(t)).map((t) => specs.get(t)!), { ...specs.get(loader)!, description: loaderDescription(later) }]
}

/** The offer anvil.json asks for (`tools.on_demand`, `tools.always_offer`, `tools.extension_budget`), plus tools a host named. */
export const offerFromConfig = (config: ConfigShape, named: ReadonlyArray<string> = []): ToolOffer => ({
  onDemand: config.get("tools.on_demand", DEFAULT_OFFER.onDemand),
  always: new Set(
    [...config.get("tools.always_offer", [] as ReadonlyArray<unknown>), ...named].filter((n): n is string => typeof n === "string").map((n) => n.toLowerCase()),
  ),
  extensionBudget: config.count("tools.extension_budget", DEFAULT_OFFER.extensionBudget),
})
