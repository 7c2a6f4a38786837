import { describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { mcpCommand } from "../../src/cli/mcp-command.ts"
import { Config } from "../../src/config/config.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { skillPrompt } from "../../src/skills/skill-arguments.ts"
import { loadSkillCatalog } from "../../src/skills/skill-catalog.ts"
import { makeConfig } from "../../src/config/config.ts"
import { commandsOf, pluginMcpServers, pluginSkillFolders } from "../../src/plugins/plugin-extras.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { discoverPlugins } from "../../src/plugins/discovery.ts"
import { builtinTools, callTool, project, tempDir, writeTree } from "../support/harness.ts"

/** A user plugin folder and the environment that finds it. */
const userPlugin = (tree: Record<string, string>) => {
  const config = tempDir("anvil-claude-parts-")
  const env = { XDG_CONFIG_HOME: config, HOME: join(config, "home"), PATH: process.env.PATH ?? "/usr/bin:/bin" }
  writeTree(join(config, "anvil", "plugins", "parts"), tree)
  const root = project({ "a.txt": "x\n" })
  return { root, env, config: makeConfig({}, env) }
}

describe("Claude Code plugin parts where the manifest puts them", () => {
  test("plugin.json, hooks.json and .mcp.json saved with a byte-order mark load, as Claude Code loads them", async () => {
    const bom = "\uFEFF"
    const p = userPlugin({
      ".claude-plugin/plugin.json": bom + JSON.stringify({ name: "parts", description: "With a BOM" }),
      "hooks/hooks.json": bom + JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] } }),
      ".mcp.json": bom + JSON.stringify({ mcpServers: { local: { command: "srv" } } }),
    })
    const set = await loadPlugins({ root: p.root, env: p.env, config: p.config, builtinNames: builtinNames(), onProblem: () => {} })
    expect(set.reports[0]).toMatchObject({ name: "parts", status: "loaded", description: "With a BOM", hooks: ["PreToolUse(Bash)"], mcpServers: ["local"] })
  })

  test(".mcp.json with its servers at the top level (as published plugins write it) is read like one wrapped in mcpServers", () => {
    const p = userPlugin({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "parts" }),
      ".mcp.json": JSON.stringify({ github: { type: "http", url: "https://example.invalid/mcp/", headers: { Authorization: "Bearer ${TOKEN}" } }, local: { command: "${CLAUDE_PLUGIN_ROOT}/bin/srv" } }),
    })
    const servers = pluginMcpServers(p)
    expect(servers.map((s) => s.name)).toEqual(["github", "local"])
    expect(servers[0]!.config).toMatchObject({ type: "http", headers: { Authorization: "Bearer ${TOKEN}" } })
    expect(String(servers[1]!.config.command)).toEndWith(join("plugins", "parts", "bin", "srv"))
  })

  test("manifest paths: commands and agents replace their folders, skills add to skills/, hooks and mcpServers merge with their files; bad paths are warnings", async () => {
    const p = userPlugin({
      ".claude-plugin/plugin.json": JSON.stringify({
        name: "parts",
        commands: ["./custom/deploy.md", "./more/"],
        agents: "./team-agents/",
        skills: ["./extra-skills/", "../elsewhere", "./missing/"],
        hooks: ["./config/hooks.json", { PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "exit 0" }] }] }],
        mcpServers: { inline: { command: "srv-inline" } },
      }),
      "commands/ignored.md": "Never offered: the manifest names other commands.\n",
      "custom/deploy.md": "---\ndescription: Deploy it\n---\nDeploy $ARGUMENTS\n",
      "more/status.md": "Show the status.\n",
      "team-agents/checker.md": "---\ndescription: Checks things\n---\nYou check.\n",
      "skills/base/SKILL.md": "---\nname: base\ndescription: From skills/.\n---\nBase.\n",
      "extra-skills/added/SKILL.md": "---\nname: added\ndescription: From the manifest's folder.\n---\nAdded.\n",
      "hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo from-default >&2; exit 2" }] }] } }),
      "config/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "echo from-config >&2; exit 2" }] }] } }),
      ".mcp.json": JSON.stringify({ mcpServers: { fromfile: { command: "srv-file" } } }),
    })
    const set = await loadPlugins({ root: p.root, env: p.env, config: p.config, builtinNames: builtinNames(), onProblem: () => {} })
    const report = set.reports[0]!
    expect(report).toMatchObject({
      status: "loaded",
      commands: ["deploy", "status"],
      agents: ["checker"],
      skills: ["added", "base"],
      hooks: ["PreToolUse(Bash)", "PreToolUse(Write)", "PostToolUse(Read)"],
      mcpServers: ["fromfile", "inline"],
    })
    expect(report.warnings).toEqual([
      "plugin.json: skills path escapes the plugin's folder, so it was not read: ../elsewhere",
      "plugin.json: skills path not found: ./missing/",
    ])
    // The same parts without loading the plugin (the Agent SDK's command list, the skill catalogue).
    const found = discoverPlugins({ root: p.root, env: p.env, paths: [] }).plugins
    expect(commandsOf(found).map((c) => c.name)).toEqual(["deploy", "status"])
    expect(pluginSkillFolders(p).map((f) => f.dir.split("/").at(-1))).toEqual(["skills", "extra-skills"])

    // Both hooks files run: the default file's and the one the manifest names.
    const tools = toolsWithPlugins(builtinTools, set)
    const bash = await callTool(p.root, "bash", { command: "echo hi" }, { tools, env: p.env })
    expect(bash.envelope.error?.message).toContain("from-default")
    const write = await callTool(p.root, "write", { path: "b.txt", content: "x" }, { tools, env: p.env })
    expect(write.envelope.error?.message).toContain("from-config")
  })

  test("${CLAUDE_PLUGIN_DATA}: filled in hook commands and server settings, exported to hooks, and made when first used", async () => {
    const p = userPlugin({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "parts" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'echo "${CLAUDE_PLUGIN_DATA}|$CLAUDE_PLUGIN_DATA" >&2; exit 2' }] }] },
      }),
      ".mcp.json": JSON.stringify({ mcpServers: { db: { command: "srv", args: ["--cache", "${CLAUDE_PLUGIN_DATA}/cache"] } } }),
    })
    const data = join(p.env.XDG_CONFIG_HOME, "anvil", "plugin-data", "parts")
    expect(pluginMcpServers(p)[0]!.config.args).toEqual(["--cache", `${data}/cache`])
    expect(existsSync(data)).toBe(true)
    const set = await loadPlugins({ root: p.root, env: p.env, config: p.config, builtinNames: builtinNames(), onProblem: () => {} })
    const bash = await callTool(p.root, "bash", { command: "echo hi" }, { tools: toolsWithPlugins(builtinTools, set), env: p.env })
    expect(bash.envelope.error?.message).toBe(`Blocked by plugin 'parts': ${data}|${data}`)
  })

  test("a plugin's skill runs as /plugin:name (Claude Code's name for it) as well as /name; another plugin's prefix does not reach it", async () => {
    const p = userPlugin({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "parts" }),
      "skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\nGreet $ARGUMENTS.\n",
    })
    const catalog = await Effect.runPromise(
      loadSkillCatalog(p.root, { compiled: true, skills: {} }, pluginSkillFolders(p)).pipe(Effect.provide(Config.layerFrom({}, p.env)), Effect.provide(PlatformLive)),
    )
    expect(catalog.skills.map((s) => [s.name, s.plugin])).toEqual([["greet", "parts"]])
    expect(skillPrompt("/parts:greet Ada", catalog.skills, "s1", "(built in)")).toEndWith("Greet Ada.")
    expect(skillPrompt("/greet Ada", catalog.skills, "s1", "(built in)")).toEndWith("Greet Ada.")
    expect(skillPrompt("/other:greet Ada", catalog.skills, "s1", "(built in)")).toBeUndefined()
    // The skill tool takes the same name (Claude Code's Skill tool is called with "plugin:name").
    const loaded = await callTool(p.root, "skill", { name: "parts:greet", args: "Bo" }, { env: p.env })
    expect(loaded.envelope.data).toMatchObject({ name: "greet", content: "Greet Bo." })
    expect((await callTool(p.root, "skill", { name: "other:greet" }, { env: p.env })).envelope.error?.code).toBe("NOT_FOUND")
  })

  test("anvil mcp names the servers of a project plugin not trusted yet, with the command that trusts it, instead of listing nothing", async () => {
    const root = project({})
    const config = tempDir("anvil-claude-parts-")
    const env = { XDG_CONFIG_HOME: config, HOME: join(config, "home"), PATH: process.env.PATH ?? "/usr/bin:/bin" }
    writeTree(join(root, ".anvil", "plugins", "tickets"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "tickets" }),
      ".mcp.json": JSON.stringify({ tracker: { command: "tracker-server" } }),
    })
    const out: Array<string> = []
    const io = { out: (t: string) => out.push(t), err: () => {}, readStdin: async () => "", cwd: root, env }
    expect(await mcpCommand(["--json"], io, root)).toBe(0)
    expect(JSON.parse(out.join(""))).toEqual({
      servers: [],
      problems: [
        {
          source: "plugin tickets",
          message: "the project's plugin is not trusted, so its MCP servers (tracker) were not started; review it, then run 'anvil plugins trust tickets'",
        },
      ],
    })
  })

  test("a plugin whose own folder holds SKILL.md (no skills/, no skills key) is that one skill", () => {
    const p = userPlugin({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "parts" }),
      "SKILL.md": "---\nname: parts\ndescription: The plugin is the skill.\n---\nDo it.\n",
    })
    expect(pluginSkillFolders(p).map((f) => f.dir.split("/").at(-1))).toEqual(["parts"])
  })
})
