import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { query } from "@anthropic-ai/claude-agent-sdk"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"
import { base, collect, model, stopServers } from "./sdk-support.ts"

// The program's plugins reach anvil's plugin discovery through ANVIL_PLUGIN_DIRS, which was `:`-separated: a
// folder whose path held a `:` was cut in two and never loaded. Any path a folder can have must load.
setDefaultTimeout(60_000)

afterAll(stopServers)
beforeAll(() => void anvilBinary(), 120_000)

/** A Claude Code plugin whose PreToolUse hook refuses `sudo`, in a folder named `name` inside a temp folder. */
const guardPlugin = (name: string): string => {
  const plugin = join(tempDir("anvil-sdk-plugin-"), name)
  writeTree(plugin, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "guard" }),
    "hooks/hooks.json": JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'grep -q "sudo" && { echo "no sudo here" >&2; exit 2; }; exit 0' }] }] },
    }),
  })
  return plugin
}

const cases = [
  ["a ':'", "team:guard"],
  ["a line break and a space", "my guard\nplugin"],
  ["a leading '['", "[guard]"],
] as const

describe("plugin folders whose path the separated list cannot hold", () => {
  for (const [what, name] of cases) {
    for (const pluginDelivery of ["argv", "initialize"] as const) {
      test(`a plugin path with ${what} loads (pluginDelivery ${pluginDelivery}), beside one from the user's own ANVIL_PLUGIN_DIRS`, async () => {
        const root = project({})
        const plugin = guardPlugin(name)
        const other = guardPlugin("other")
        writeTree(other, { ".claude-plugin/plugin.json": JSON.stringify({ name: "other" }) })
        const { env } = model([{ tool_calls: [{ name: "bash", arguments: { command: "sudo ls" }, id: "b1" }] }, { text: "Blocked." }])
        const q = query({
          prompt: "go",
          options: { ...base(root, { ...env, ANVIL_PLUGIN_DIRS: other }), permissionMode: "bypassPermissions", plugins: [{ type: "local", path: plugin }], pluginDelivery },
        })
        if (pluginDelivery === "initialize") expect((await q.initializationResult()).plugins_applied).toBe(true)
        const messages = await collect(q)
        const init = messages.find((m) => m.type === "system" && m.subtype === "init") as any
        expect(init.plugins).toEqual([
          { name: "guard", path: plugin, source: "user", status: "loaded" },
          { name: "other", path: other, source: "user", status: "loaded" },
        ])
        const blocked = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "b1") as any
        expect(String(blocked.content)).toContain("no sudo here")
      })
    }
  }
})
