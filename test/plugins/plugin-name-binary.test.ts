import { expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Through the compiled binary: a plugin's name is its file's or folder's (a Claude Code plugin's `name`), known
// before its code runs. A name anvil cannot name things after is the plugin's error with a code and the name to
// use; a Claude Code name that is not kebab-case, and a definePlugin name that is not the plugin's, are warnings.
setDefaultTimeout(120_000)

const sandbox = () => {
  const root = project({ "a.txt": "x\n" })
  const base = tempDir("anvil-plugin-name-")
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  mkdirSync(env.HOME, { recursive: true })
  const plugins = join(env.XDG_CONFIG_HOME, "anvil", "plugins")
  const anvil = (args: ReadonlyArray<string>) => runBinary(args, { cwd: root, env })
  const list = async () => JSON.parse((await anvil(["plugins", "--json"])).stdout).plugins as Array<any>
  return { plugins, anvil, list }
}

const tool = (name: string, plugin = "") =>
  `import { definePlugin, defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nconst t = defineTool({ name: ${JSON.stringify(name)}, description: "d", readOnly: true, parameters: Schema.Struct({}), run: () => "ran ${name}" })\nexport default ${plugin ? `definePlugin({ ${plugin}api: 1, tools: [t] })` : "t"}\n`

test("a name anvil cannot name things after is the plugin's error (invalid_plugin_name) with the name to use; the others load", async () => {
  const s = sandbox()
  writeTree(s.plugins, {
    "cc/.claude-plugin/plugin.json": JSON.stringify({ name: "My Plugin:x/y", mcpServers: { srv: { command: "true" } } }),
    "cc/skills/rev/SKILL.md": "---\nname: rev\ndescription: r\n---\nbody\n",
    "bad name.ts": tool("bad_tool"),
    "good-one.ts": tool("good_tool"),
  })
  const byName = Object.fromEntries((await s.list()).map((p) => [p.name, p]))
  expect(byName["My Plugin:x/y"]).toMatchObject({ status: "error", error: { code: "invalid_plugin_name" }, mcpServers: [], skills: [] })
  expect(byName["My Plugin:x/y"].error.message).toBe(
    `the plugin name "My Plugin:x/y" cannot be used (invalid_plugin_name): a plugin's name is a letter or digit, then letters, digits, '-' or '_' (at most 64), and kebab-case (lowercase, words joined by '-') as Claude Code's are is best; set "name" in ${join(s.plugins, "cc", ".claude-plugin", "plugin.json")} to "my-plugin-x-y"`,
  )
  expect(byName["bad name"]).toMatchObject({ status: "error", error: { code: "invalid_plugin_name" } })
  expect(byName["bad name"].error.message).toEndWith("rename the file to 'bad-name.ts'")
  expect(byName["good-one"]).toMatchObject({ status: "loaded", tools: ["good_tool"] })
  expect(byName["good-one"].warnings).toBeUndefined()
  // Its server is not started under a name no model accepts; its tool is not there; the good plugin's tool runs.
  expect((await s.anvil(["mcp"])).stdout).not.toContain("plugin_My Plugin")
  expect((await s.anvil(["tool", "bad_tool", "{}"])).code).toBe(2)
  expect((await s.anvil(["tool", "good_tool", "{}", "--text"])).stdout).toContain("ran good_tool")
  const check = await s.anvil(["plugins", "check", join(s.plugins, "bad name.ts")])
  expect(check.code).toBe(1)
  expect(check.stdout + check.stderr).toContain("(invalid_plugin_name)")
})

test("a Claude Code name that is not kebab-case loads with a warning; a definePlugin name that is not the file's is a warning, the file's name holds", async () => {
  const s = sandbox()
  writeTree(s.plugins, {
    "snake/.claude-plugin/plugin.json": JSON.stringify({ name: "My_Plugin" }),
    "word_count.ts": tool("count_words", 'name: "counter", '),
    "same.ts": tool("same_tool", 'name: "same", '),
    "folder-plugin/index.ts": tool("folder_tool", 'name: "Folder Plugin", '),
  })
  const byName = Object.fromEntries((await s.list()).map((p) => [p.name, p]))
  expect(byName["My_Plugin"]).toMatchObject({ status: "loaded" })
  expect(byName["My_Plugin"].warnings).toEqual([
    `the plugin name 'My_Plugin' is not kebab-case (plugin_name_not_kebab_case): Claude Code asks for lowercase words joined by '-'; anvil loads it as 'My_Plugin', but set "name" in ${join(s.plugins, "snake", ".claude-plugin", "plugin.json")} to "my-plugin"`,
  ])
  expect(byName["word_count"]).toMatchObject({ status: "loaded", tools: ["count_words"] })
  expect(byName["word_count"].warnings).toEqual([
    `definePlugin names it "counter", but the plugin is 'word_count' (plugin_name_mismatch): a plugin is named by its file's name without .ts, known before its code runs, which trust, plugins.disabled and plugins.options use; rename the file to 'counter.ts', or leave name out of definePlugin`,
  ])
  expect(byName["counter"]).toBeUndefined()
  expect(byName["same"].warnings).toBeUndefined()
  expect(byName["folder-plugin"].warnings![0]).toEndWith("(plugin_name_mismatch): a plugin is named by its folder's name, known before its code runs, which trust, plugins.disabled and plugins.options use; write name: \"folder-plugin\" in definePlugin, or leave it out")
  const check = await s.anvil(["plugins", "check", join(s.plugins, "word_count.ts")])
  expect(check.code).toBe(4)
  expect(check.stderr).toContain("anvil plugins check: word_count loads, with 1 warning (above); exit code 4")
  expect((await s.anvil(["plugins", "check", join(s.plugins, "same.ts")])).code).toBe(0)
  expect((await s.anvil(["plugins", "check", join(s.plugins, "snake")])).code).toBe(4)
})
