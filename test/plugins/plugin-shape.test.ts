import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { pluginShape, toolNameProblem } from "../../src/plugins/plugin-shape.ts"

describe("what a plugin module exports", () => {
  test("no default export: the next step names anvil's forms, and an opencode-style plugin (functions by name) is told apart", () => {
    const opencode = pluginShape({ NotifyPlugin: async () => ({ "tool.execute.before": async () => {} }) })
    expect(opencode).toEqual({
      ok: false,
      message:
        "the module has no default export; export default defineTool({...}), an array of tools, or definePlugin({...}) (it exports NotifyPlugin by name, as an opencode plugin does: anvil does not run opencode's plugin API; its hooks are definePlugin's, see 'Writing a plugin' in the README)",
    })
    expect(pluginShape({ VERSION: "1" })).toEqual({
      ok: false,
      message: "the module has no default export; export default defineTool({...}), an array of tools, or definePlugin({...})",
    })
  })

  test("a tool named like an MCP server's tool (mcp__…, in any case) is refused wherever tools are defined, with a name to use instead", () => {
    const tool = (name: string) => ({ name, description: "d", parameters: Schema.Struct({}), run: () => "" })
    const reserved = "starts with 'mcp__', which names the tools of MCP servers (mcp__SERVER__TOOL), so it would be taken for one; use a name without it"
    expect(pluginShape({ default: tool("mcp__x") })).toEqual({ ok: false, message: `the default export: the name 'mcp__x' ${reserved}, e.g. 'x'` })
    expect(pluginShape({ default: [tool("fine"), tool("MCP__docs__search")] })).toEqual({ ok: false, message: `tools[1]: the name 'MCP__docs__search' ${reserved}, e.g. 'docs__search'` })
    expect(pluginShape({ default: { api: 1, tools: [tool("Mcp__")] } })).toEqual({ ok: false, message: `tools[0]: the name 'Mcp__' ${reserved}, e.g. 'my_tool'` })
    expect(toolNameProblem("mcp__")).toBe(`${reserved}, e.g. 'my_tool'`)
    expect(toolNameProblem("mcp__1a")).toBe(`${reserved}, e.g. 'a'`)
    expect(toolNameProblem("mcp_x")).toBeUndefined()
    expect(toolNameProblem("9bad")).toBe("is not a usable name: a letter, then letters, digits, '_' or '-' (at most 64)")
    expect(pluginShape({ default: tool("mcp_single") }).ok).toBe(true)
  })
})
