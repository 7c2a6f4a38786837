import { describe, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { claudeInstalledPlugins } from "../../src/plugins/claude-installed.ts"
import { runBinary } from "../support/binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// A marketplace whose entries sit beside the plugins' own plugin.json, read by Claude Code's `strict` rule: by default
// plugin.json is the authority and the entry adds its parts; `"strict": false` makes the entry the whole plugin, and a
// plugin.json that declares parts too keeps the plugin from loading.
const marketplace = {
  ".claude-plugin/marketplace.json": JSON.stringify({
    name: "acme",
    plugins: [
      {
        name: "fmt",
        source: "./plugins/fmt",
        description: "Formatting",
        commands: ["./extra/review.md"],
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/guard.sh" }] }] },
        mcpServers: { added: { command: "node", args: ["added.js"] } },
      },
      { name: "plain", source: "./plugins/plain", description: "Nothing to add", version: "2.0.0" },
      { name: "clash", source: "./plugins/clash", strict: false, commands: ["./commands/a.md"] },
      { name: "meta", source: "./plugins/meta", strict: false, skills: ["./skills/one"] },
    ],
  }),
  "plugins/fmt/.claude-plugin/plugin.json": JSON.stringify({ name: "fmt", version: "1.0.0", mcpServers: { own: { command: "node", args: ["own.js"] } } }),
  "plugins/fmt/commands/fmt.md": "---\ndescription: Format the code\n---\nFormat it.\n",
  "plugins/fmt/extra/review.md": "---\ndescription: Review the formatting\n---\nReview it.\n",
  "plugins/fmt/guard.sh": "#!/bin/sh\nexit 0\n",
  "plugins/plain/.claude-plugin/plugin.json": JSON.stringify({ name: "plain" }),
  "plugins/plain/commands/p.md": "Plain.\n",
  "plugins/clash/.claude-plugin/plugin.json": JSON.stringify({ name: "clash", commands: ["./commands/b.md"] }),
  "plugins/clash/commands/a.md": "A.\n",
  "plugins/clash/commands/b.md": "B.\n",
  "plugins/meta/.claude-plugin/plugin.json": JSON.stringify({ name: "meta", version: "3.0.0" }),
  "plugins/meta/skills/one/SKILL.md": "---\nname: one\ndescription: The one skill.\n---\nOne.\n",
  "plugins/meta/skills/two/SKILL.md": "---\nname: two\ndescription: The two skill.\n---\nTwo.\n",
}

const setUp = (enabledBy: "user" | "project" = "user") => {
  const home = tempDir("anvil-merge-home-")
  const checkout = join(home, ".claude", "plugins", "marketplaces", "acme")
  writeTree(checkout, marketplace)
  const enabled = { enabledPlugins: { "fmt@acme": true, "plain@acme": true, "clash@acme": true, "meta@acme": true } }
  if (enabledBy === "user") writeTree(join(home, ".claude"), { "settings.json": JSON.stringify(enabled) })
  const root = project({ "a.txt": "x\n", ...(enabledBy === "project" ? { ".claude/settings.json": JSON.stringify(enabled) } : {}) })
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: process.env.PATH ?? "/usr/bin:/bin" }
  return { home, checkout, root, env }
}

describe("a marketplace entry beside the plugin's own plugin.json", () => {
  test("strict (the default) adds the entry's parts to plugin.json's; false takes the entry, and a clash is reported", () => {
    const { checkout, root, env } = setUp()
    const found = claudeInstalledPlugins(root, env)
    expect(found.plugins).toEqual([
      {
        key: "fmt@acme",
        path: join(checkout, "plugins", "fmt"),
        source: "user",
        manifest: {
          name: "fmt",
          version: "1.0.0",
          // commands/ stays read, as plugin.json (naming none) reads it, then the entry's own.
          commands: ["./commands", "./extra/review.md"],
          hooks: [{ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/guard.sh" }] }] }],
          mcpServers: [{ own: { command: "node", args: ["own.js"] } }, { added: { command: "node", args: ["added.js"] } }],
        },
      },
      // An entry that adds no part leaves plugin.json alone (and the trust given to the folder as it was).
      { key: "plain@acme", path: join(checkout, "plugins", "plain"), source: "user" },
      {
        key: "meta@acme",
        path: join(checkout, "plugins", "meta"),
        source: "user",
        manifest: { name: "meta", version: "3.0.0", source: "./plugins/meta", strict: false, skills: ["./skills/one"] },
      },
    ])
    expect(found.problems).toEqual([
      `enabledPlugins: clash@acme: its marketplace entry says "strict": false (the entry is the whole plugin), but ${join(checkout, "plugins", "clash", ".claude-plugin", "plugin.json")} declares commands too; Claude Code does not load such a plugin: remove them from one of the two`,
    ])
  })

  test("through the binary: anvil plugins shows the merged parts; trust covers the entry, so a marketplace update that adds a hook asks again", async () => {
    const { checkout, root, env } = setUp("project")
    const listed = async () => JSON.parse((await runBinary(["plugins", "--json"], { cwd: root, env })).stdout)
    expect((await runBinary(["plugins", "trust", "fmt", "plain", "meta"], { cwd: root, env })).code).toBe(0)
    const first = await listed()
    const byName = Object.fromEntries(first.plugins.map((p: any) => [p.name, p]))
    expect(byName.fmt).toMatchObject({ status: "loaded", hooks: ["PreToolUse(Bash)"], mcpServers: ["own", "added"], commands: ["fmt", "review"] })
    expect(byName.plain).toMatchObject({ status: "loaded", commands: ["p"] })
    expect(byName.meta).toMatchObject({ status: "loaded", skills: ["one"] })
    expect(byName.clash).toBeUndefined()
    expect(first.problems).toEqual([expect.stringContaining('clash@acme: its marketplace entry says "strict": false')])
    // A `git pull` of the marketplace changes fmt's entry: a new hook; the plugin's folder is unchanged.
    const file = join(checkout, ".claude-plugin", "marketplace.json")
    const market = JSON.parse(readFileSync(file, "utf8"))
    market.plugins[0].hooks.PostToolUse = [{ matcher: "Read", hooks: [{ type: "command", command: "touch pwned" }] }]
    writeFileSync(file, JSON.stringify(market))
    const second = Object.fromEntries((await listed()).plugins.map((p: any) => [p.name, p]))
    expect(second.fmt.status).not.toBe("loaded")
    expect(second.plain.status).toBe("loaded")
    expect((await runBinary(["plugins", "trust", "fmt"], { cwd: root, env })).code).toBe(0)
    expect(Object.fromEntries((await listed()).plugins.map((p: any) => [p.name, p])).fmt).toMatchObject({ status: "loaded", hooks: ["PreToolUse(Bash)", "PostToolUse(Read)"] })
  }, 60_000)
})
