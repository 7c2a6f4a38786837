import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { PROFILES } from "../../src/agent/profiles.ts"
import { systemPrompt } from "../../src/agent/system-prompt.ts"
import { collectLoaded, DEFAULT_OFFER, offeredSpecs, toolSpec } from "../../src/agent/tool-offer.ts"
import { parameterJsonSchema } from "../../src/tool-framework/json-schema.ts"
import type { HistoryItem } from "../../src/agent/history.ts"
import { defineTool, type Tool } from "../../src/tool-framework/definition.ts"
import { registryWithLoader } from "../../src/tools/load_tools.ts"
import { builtinTools } from "../support/harness.ts"

const fake = (name: string, bytes: number): Tool =>
  defineTool({ name, title: name, description: `${name} does things. ${"x".repeat(bytes)}`, parameters: Schema.Struct({}), run: () => Effect.succeed({ data: {}, text: "" }) })

const names = (specs: ReadonlyArray<{ name: string }>) => specs.map((s) => s.name)
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

const codeTools = registryWithLoader(PROFILES.code.select(builtinTools)).tools

describe("what one request offers", () => {
  test("the code profile: core tools, load_tools with the rest, a family (git_*, lsp_*) on one line", () => {
    const specs = offeredSpecs(codeTools, new Set(), DEFAULT_OFFER)
    expect(names(specs)).toEqual(["read", "list", "glob", "grep", "patch", "write", "edit", "bash", "todowrite", "task", "skill", "load_tools"])
    const loader = specs.at(-1)!.description
    for (const name of ["fetch", "multiedit", "calculator", "todoread"]) expect(loader).toContain(`\n- ${name}: `)
    expect(loader).toContain("\n- git_*: status: git status; diff: git diff; log: git log; add: git add; commit: git commit -m\n")
    expect(loader).toContain("\n- lsp_* (language server): diagnostics: A file's errors and warnings; definition: ")
    expect(loader).toContain("\n- bash_*: output: ")
    // Every on-demand tool is named: by its line, or by its family's prefix and its own rest.
    for (const tool of codeTools.filter((t) => !names(specs).includes(t.name))) {
      const [, family, rest] = /^(git_|lsp_|bash_)?(.+)$/.exec(tool.name)!
      expect(loader).toMatch(family ? new RegExp(`\\n- ${family}\\*[^\\n]*[:;] ${rest}: `) : new RegExp(`\\n- ${rest}: `))
    }
  })

  test("what all tools share is said once: no schema repeats additionalProperties: false, the system prompt says it", () => {
    const specs = offeredSpecs(codeTools, new Set(), DEFAULT_OFFER)
    for (const spec of specs) expect(spec.parameters).not.toHaveProperty("additionalProperties")
    for (const spec of specs) expect(spec.description).toBe(spec.description.trim())
    // The decoder still refuses unknown keys, and `anvil tools --json` still says so per tool.
    expect(parameterJsonSchema(codeTools.find((t) => t.name === "read")!).additionalProperties).toBe(false)
    const system = systemPrompt(PROFILES.code, { root: "/p", cwd: ".", platform: "linux x64", date: "2026-01-01" })
    expect(system).toContain("A call takes only the parameters its schema lists.")
    // Started at the root: no sentence about a working folder; started below it: "here" is named.
    expect(system).not.toContain("started anvil in")
    expect(systemPrompt(PROFILES.code, { root: "/p", cwd: "pkg/app", platform: "linux x64", date: "2026-01-01" })).toContain(
      'The user started anvil in pkg/app (root-relative): "here" means that folder',
    )
  })

  test("the first request stays under 13 KB (system prompt and tool schemas); each schema is printed", () => {
    const specs = offeredSpecs(codeTools, new Set(), DEFAULT_OFFER)
    const system = systemPrompt(PROFILES.code, { root: "/home/user/project", cwd: ".", platform: "linux x64", date: "2026-01-01", skills: [] })
    const table = specs.map((s) => `${String(bytes(s)).padStart(6)}  ${s.name}`).join("\n")
    const total = bytes(system) + bytes(specs)
    console.log(`bytes per offered tool schema:\n${table}\nsystem prompt ${bytes(system)}, total ${total}`)
    expect(total).toBeLessThan(13_000)
    for (const spec of specs) expect(bytes(spec)).toBeLessThan(1_600)
    // Every built-in, offered or not, stays small too.
    for (const tool of builtinTools) expect(bytes(toolSpec(tool))).toBeLessThan(1_900)
  })

  test("loaded or called tools are offered; the loader leaves when nothing is left on demand", () => {
    const loaded = new Set(["git_status"])
    expect(names(offeredSpecs(codeTools, loaded, DEFAULT_OFFER))).toContain("git_status")
    const everything = new Set(codeTools.map((t) => t.name))
    expect(names(offeredSpecs(codeTools, everything, DEFAULT_OFFER))).not.toContain("load_tools")
    expect(names(offeredSpecs(codeTools, new Set(), { ...DEFAULT_OFFER, onDemand: false }))).not.toContain("load_tools")
    expect(names(offeredSpecs(codeTools, new Set(), { ...DEFAULT_OFFER, always: new Set(["fetch"]) }))).toContain("fetch")
  })

  test("MCP and plugin tools: offered while they fit the budget, on demand beyond it", () => {
    const small = registryWithLoader([...codeTools, fake("mcp__a__one", 500), fake("plug", 500)]).tools
    expect(names(offeredSpecs(small, new Set(), DEFAULT_OFFER))).toEqual(expect.arrayContaining(["mcp__a__one", "plug"]))
    const large = registryWithLoader([...codeTools, fake("mcp__a__one", 4_000), fake("mcp__a__two", 4_000)]).tools
    const specs = offeredSpecs(large, new Set(), DEFAULT_OFFER)
    expect(names(specs)).not.toContain("mcp__a__one")
    expect(specs.at(-1)!.description).toContain("\n- mcp__a__*: one: mcp__a__one does things; two: mcp__a__two does things")
    expect(names(offeredSpecs(large, new Set(), { ...DEFAULT_OFFER, extensionBudget: 20_000 }))).toContain("mcp__a__two")
  })

  test("a small tool set is offered whole (loading would save too little)", () => {
    const few = registryWithLoader(PROFILES.test.select(builtinTools)).tools
    expect(names(offeredSpecs(few, new Set(), DEFAULT_OFFER))).toEqual(["list", "calculator"])
  })

  test("what was loaded or called is read back from the history", () => {
    const registry = registryWithLoader(codeTools)
    const envelope = (data: Record<string, unknown>) => ({ status: "success" as const, data, text: "", stats: { time_ms: 0 }, context: { cwd: ".", params_input: {} } })
    const meta = { tool_name: "x", tool_call_id: "c", status: "success" as const, truncation: { truncated: false }, retrieval_hints: [] } as any
    const items: Array<HistoryItem> = [
      { type: "tool", call_id: "1", name: "load_tools", text: "", metadata: { tool_raw_envelope: envelope({ loaded: ["git_log", "fetch"] }), tool_execution_meta: meta } },
      { type: "tool", call_id: "2", name: "GitDiff", text: "", metadata: { tool_raw_envelope: envelope({}), tool_execution_meta: meta } },
    ]
    expect([...collectLoaded(items, registry, new Set(["lsp_hover"]))].sort()).toEqual(["fetch", "git_diff", "git_log", "lsp_hover"])
  })
})
