import { describe, expect, test } from "bun:test"
import { pluginShape } from "../../src/plugins/plugin-shape.ts"

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
})
