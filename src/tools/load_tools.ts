import { Effect, Schema } from "effect"
import { nearestWord } from "../config/nearest.ts"
import { hint } from "../protocol/hint.ts"
import { invalidParam, ToolError } from "../protocol/tool-error.ts"
import { defineTool, type Tool } from "../tool-framework/definition.ts"
import { makeRegistry, type ToolRegistry, type ToolSource } from "../tool-framework/registry.ts"
import description from "./load_tools.md" with { type: "text" }
import { catalogueLines } from "./tool-catalogue.ts"

/** The loader's name: the agent offers it, with the catalogue of what it can load, when some tools are on demand. */
export const LOAD_TOOLS = "load_tools"

/** The loader's description with the catalogue of the tools it can load (a family on one line). */
export const loaderDescription = (onDemand: ReadonlyArray<Tool>): string => `${description.trim()}\n${catalogueLines(onDemand).join("\n")}`

/**
 * The tools one requested name stands for: the tool it names (or an alias of),
 * the same with spaces or hyphens for underscores ("git status"), or else the
 * family it starts, as the catalogue writes it or not ("git", "git_*" → git_*; "mcp__docs" → that server's tools).
 */
const resolveName = (registry: ToolRegistry, tools: ReadonlyArray<Tool>, name: string): ReadonlyArray<Tool> => {
  const direct = registry.lookup(name)
  if (direct) return [direct]
  const key = name.trim().toLowerCase().replace(/[\s-]+/g, "_")
  if (key === "") return []
  const normalized = registry.lookup(key)
  if (normalized) return [normalized]
  const group = key.replace(/\*$/, "").replace(/_+$/, "")
  return tools.filter((t) => {
    const lower = t.name.toLowerCase()
    return lower.startsWith(`${group}_`)
  })
}

/**
 * load_tools: the model asks for tools that are not in every request (git,
 * fetch, LSP, MCP and plugin tools beyond their budget); the agent loop adds
 * the loaded ones to the following requests (it reads `data.loaded` from the
 * history). `catalog` is every tool of the registry this one sits in.
 */
export const loadToolsTool = (
  catalog: () => ReadonlyArray<Tool>,
  /** Why a name the catalogue leaves out is refused (a tool the permission rules deny outright), if it is. */
  refused: (name: string) => string | undefined = () => undefined,
): Tool<{ readonly names: ReadonlyArray<string> | string }> =>
  defineTool({
    name: LOAD_TOOLS,
    title: "LoadTools",
    description,
    aliases: ["tool_search", "load_tool"],
    parameterAliases: { tools: "names", name: "names" },
    readOnly: true,
    // One name given as a plain string is taken too (models often send that); the schema offered stays the array.
    parameters: Schema.Struct({ names: Schema.Union([Schema.Array(Schema.String), Schema.String]) }),
    jsonSchema: {
      type: "object",
      properties: {
        names: { type: "array", items: { type: "string" }, description: "Names as listed (git_* lists git_status, …), or families: git, lsp, mcp__SERVER." },
      },
      required: ["names"],
      additionalProperties: false,
    },
    run: ({ names }) =>
      Effect.gen(function* () {
        const tools = catalog().filter((t) => t.name !== LOAD_TOOLS)
        const registry = makeRegistry(tools)
        const found = new Map<string, Tool>()
        const unknown: Array<string> = []
        const denied: Array<{ readonly name: string; readonly reason: string }> = []
        for (const name of typeof names === "string" ? [names] : names) {
          const matched = resolveName(registry, tools, name)
          const reason = matched.length === 0 ? refused(name) : undefined
          if (matched.length > 0) for (const tool of matched) found.set(tool.name, tool)
          else if (reason !== undefined) denied.push({ name, reason })
          else unknown.push(name)
        }
        const available = tools.map((t) => t.name).join(", ")
        const refusedNote = `not loaded, every call would be refused: ${denied.map((d) => d.reason).join(" ")}`
        // Not PERMISSION_DENIED: the loader call itself was not refused (the run's final word would say to approve it).
        // The names are right, so asking for them again fares the same: the next step is said, not a call guessed.
        if (found.size === 0 && denied.length > 0 && unknown.length === 0) {
          const message = `Invalid parameter 'names': ${refusedNote}`
          return yield* new ToolError({
            code: "INVALID_PARAM",
            message,
            fieldErrors: [{ field: "names", message: refusedNote }],
            nextStep: `go on with the tools you have; the permission rules named above refuse ${denied.map((d) => d.name).join(", ")}, and only the user can change them.`,
          })
        }
        if (found.size === 0) {
          // Only the unknown names are to be given again; the refused ones are said apart.
          const unknownNote = `no such tool: ${unknown.join(", ") || "(none named)"}. Available: ${available}`
          // A name close to a tool's (git_stat) is most likely that tool: asked for under its name.
          const near = unknown.map((n) => nearestWord(n, tools.map((t) => t.name))).flatMap((w) => (w?.likely ? [w.word] : []))
          const hints = near.length > 0 ? [hint("LoadTools", "high", { names: [...new Set(near)] })] : undefined
          return yield* invalidParam("names", denied.length > 0 ? `${unknownNote}. Also ${refusedNote}` : unknownNote, hints)
        }
        const loaded = [...found.values()]
        const lines = [`Loaded ${loaded.map((t) => t.name).join(", ")}: offered from the next step on; call them as usual.`]
        if (unknown.length > 0) lines.push(`Not found: ${unknown.join(", ")} (available: ${available}).`)
        for (const d of denied) lines.push(`Not loaded: ${d.reason}`)
        return {
          ...(unknown.length > 0 || denied.length > 0 ? { status: "partial" as const } : {}),
          header: `LoadTools: ${loaded.map((t) => t.name).join(", ")}`,
          data: {
            loaded: loaded.map((t) => t.name),
            unknown,
            ...(denied.length > 0 ? { denied } : {}),
            tools: loaded.map((t) => ({ name: t.name, description: t.description })),
          },
          text: lines.join("\n"),
        }
      }),
  })

/**
 * A registry with the loader in it, its catalogue being the registry itself (tools that join later included).
 * `deniedOutright` (the permission rules) hides the tools every call of which would be refused: `tools` (what
 * the model is offered and can load) leaves them out, while `lookup` still finds them, so a call by name gets
 * the rule's refusal rather than "unknown tool".
 */
export const registryWithLoader = (
  fixed: ReadonlyArray<Tool>,
  sources: ReadonlyArray<ToolSource> = [],
  withheld?: (name: string) => string | undefined,
  deniedOutright?: (tool: Tool) => string | undefined,
): ToolRegistry => {
  let registry: ToolRegistry | undefined
  const refused = (name: string) => {
    const tool = registry?.lookup(name) ?? registry?.lookup(name.trim().replace(/[\s-]+/g, "_"))
    return tool && deniedOutright ? deniedOutright(tool) : undefined
  }
  const loader = loadToolsTool(() => registry?.tools ?? fixed, refused)
  const all = makeRegistry([...fixed.filter((t) => t.name !== LOAD_TOOLS), loader], sources, withheld)
  registry = deniedOutright
    ? {
        get tools() {
          return all.tools.filter((t) => deniedOutright(t) === undefined)
        },
        lookup: all.lookup,
        has: all.has,
        ...(all.withheld ? { withheld: all.withheld } : {}),
      }
    : all
  return registry
}
