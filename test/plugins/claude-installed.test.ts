import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { claudeInstalledPlugins } from "../../src/plugins/claude-installed.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

describe("Claude Code's installed plugins", () => {
  test("enabledPlugins as Claude Code reads it: false is off, a list is ignored, any other value is on; version 1 of installed_plugins.json", () => {
    const home = tempDir("anvil-claude-home-")
    const root = project({ ".claude/settings.local.json": JSON.stringify({ enabledPlugins: { "late@m": false } }) })
    const at = (name: string) => join(home, ".claude", "plugins", "cache", "m", name, "1.0.0")
    for (const name of ["on", "object", "late", "listed"]) writeTree(at(name), { ".claude-plugin/plugin.json": JSON.stringify({ name }) })
    writeTree(join(home, ".claude"), {
      "settings.json": JSON.stringify({ enabledPlugins: { "on@m": true, "object@m": {}, "late@m": true, "listed@m": ["x"], "off@m": false } }),
      // Version 1: one record per key.
      "plugins/installed_plugins.json": JSON.stringify({ version: 1, plugins: { "on@m": { installPath: at("on"), version: "1.0.0" } } }),
    })
    const found = claudeInstalledPlugins(root, { HOME: home })
    expect(found.plugins.map((p) => [p.key, p.path, p.source])).toEqual([
      ["on@m", at("on"), "user"],
      ["object@m", at("object"), "user"],
    ])
    expect(found.problems).toEqual([])
    expect(claudeInstalledPlugins(root, { HOME: home, CLAUDE_CONFIG_DIR: join(home, "elsewhere") }).plugins).toEqual([])
  })
})
