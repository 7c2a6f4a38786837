import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { loadPlugins, pluginNotices, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { builtinTools, callTool, project, writeTree } from "../support/harness.ts"
import { claudeConfigEnv } from "./claude-config-env.ts"

/**
 * A broken part of a Claude Code plugin folder (a hooks.json that is not JSON, a wrong field in it, a broken
 * .mcp.json) costs that part only: the plugin loads with its skills, commands, agents and MCP servers, and the
 * problem is a warning naming the file, the line and column, and what to do.
 */

const plugin = (files: Record<string, string>) => {
  const { config, env } = claudeConfigEnv()
  const dir = join(config, "anvil", "plugins", "team")
  writeTree(dir, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "team", description: "Team tools" }),
    "skills/review/SKILL.md": "---\nname: review\ndescription: Review a change.\n---\nCheck tests first.\n",
    "commands/greet.md": "---\ndescription: greet\n---\nGreet $ARGUMENTS\n",
    "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nYou help.\n",
    ".mcp.json": JSON.stringify({ mcpServers: { tickets: { command: "tickets" } } }),
    ...files,
  })
  return { env, dir }
}

const load = async (env: Record<string, string>) => {
  const root = project({ "a.txt": "x\n" })
  const problems: Array<string> = []
  const set = await loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: (m) => problems.push(m) })
  return { root, set, problems }
}

describe("a broken part of a Claude Code plugin folder", () => {
  test("hooks.json that is not JSON: the plugin loads without its hooks, the warning names file, line and column", async () => {
    const { env, dir } = plugin({ "hooks/hooks.json": '{"hooks": {\n  "PreToolUse": [\n    {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]},\n  ]\n}}\n' })
    const { set } = await load(env)
    const report = set.reports[0]!
    expect(report).toMatchObject({ status: "loaded", skills: ["review"], mcpServers: ["tickets"], agents: ["helper"], commands: ["greet"], hooks: [] })
    expect(report.warnings).toEqual([
      `${join(dir, "hooks/hooks.json")}:4:3: not valid JSON (Unexpected comma at the end of array expression; ValueExpected), so none of its hooks run; the plugin's other parts loaded. Fix the file, then check it with 'anvil plugins check ${dir}'`,
    ])
    // A run's warnings carry it too.
    expect(pluginNotices(set)).toEqual([`plugin 'team': ${report.warnings![0]}`])
    expect(set.agents.map((a) => a.name)).toEqual(["team:helper"])
    expect(set.commands.map((c) => c.name)).toEqual(["greet"])
    expect(set.mcpServers.map((s) => s.name)).toEqual(["tickets"])
  })

  test("wrong fields cost their own part: the file's other hooks run, and each is placed and explained", async () => {
    const hooks = {
      hooks: {
        PreToolUse: { matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] },
        PostToolUse: [
          { matcher: "Read", hooks: [{ type: "command" }, { type: "command", command: "cat >/dev/null; echo checked >&2; exit 2", timeout: "5" }] },
          { matcher: 3, hooks: [{ type: "command", command: "exit 2" }] },
          { matcher: "Write", hooks: { type: "command", command: "exit 2" } },
          { matcher: "Glob", hooks: [{ type: "prompt", prompt: "Is this fine?" }] },
        ],
        pretooluse: [],
        Stop: [],
      },
    }
    const { env, dir } = plugin({ "hooks/hooks.json": JSON.stringify(hooks, null, 2) })
    const { root, set, problems } = await load(env)
    const file = join(dir, "hooks/hooks.json")
    const report = set.reports[0]!
    expect(report).toMatchObject({ status: "loaded", hooks: ["PostToolUse(Read)"], skills: ["review"], mcpServers: ["tickets"] })
    expect(report.unsupported).toEqual(['PostToolUse hook of type "prompt"', "Stop hooks"])
    expect(report.warnings).toEqual([
      `${file}:3:19: hooks.PreToolUse must be a list of matcher groups ([{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]), so its PreToolUse hooks do not run`,
      `${file}:16:11: hooks.PostToolUse[0].hooks[0] must be {"type": "command", "command": "…"} with the command to run, so it does not run`,
      `${file}:22:24: hooks.PostToolUse[0].hooks[1].timeout must be a number of seconds above 0; the default, 60, applies`,
      `${file}:27:20: hooks.PostToolUse[1].matcher must be a text (a tool name or a regular expression such as "Edit|Write"), so this group does not run`,
      `${file}:35:7: hooks.PostToolUse[2] must be a matcher group with a "hooks" list ({"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}), so it does not run`,
      `${file}:52:19: hooks.pretooluse is not a hook event of Claude Code (did you mean PreToolUse?), so its hooks never run`,
    ])
    // The hook that is well written runs; the broken ones around it do not (bash is not blocked).
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const read = await callTool(root, "read", { path: "a.txt" }, { tools, env })
    expect(read.envelope.text).toContain("PostToolUse hook feedback:\nchecked")
    const bash = await callTool(root, "bash", { command: "echo fine" }, { tools, env })
    expect(bash.envelope.status).toBe("success")
  })

  test("a broken .mcp.json costs its servers only; a broken manifest is still the plugin's error, placed", async () => {
    const { env, dir } = plugin({
      ".mcp.json": '{"mcpServers": {"tickets": {"command": "tickets"}}',
      "hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] } }),
    })
    const { set } = await load(env)
    expect(set.reports[0]).toMatchObject({ status: "loaded", hooks: ["PreToolUse(Bash)"], skills: ["review"], mcpServers: [] })
    expect(set.reports[0]!.warnings).toEqual([
      `${join(dir, ".mcp.json")}:1:51: not valid JSON (Expected '}'; CloseBraceExpected), so none of its MCP servers start; the plugin's other parts loaded. Fix the file, then check it with 'anvil plugins check ${dir}'`,
    ])

    const broken = plugin({ ".claude-plugin/plugin.json": '{"name": "team",\n "description": }' })
    const again = await load(broken.env)
    expect(again.set.reports[0]).toMatchObject({ status: "error", error: { message: `${join(broken.dir, ".claude-plugin/plugin.json")}:2:17: not valid JSON (Unexpected token '}'; ValueExpected)` } })
  })
})
