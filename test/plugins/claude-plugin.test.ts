import { describe, expect, test } from "bun:test"
import { chmodSync, existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { matcherSelects } from "../../src/plugins/claude-plugin.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { pluginMcpServers, pluginSkillFolders } from "../../src/plugins/plugin-extras.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { loadSkillCatalog } from "../../src/skills/skill-catalog.ts"
import { Config } from "../../src/config/config.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { builtinTools, callTool, project, tempDir, writeTree } from "../support/harness.ts"
import { claudeConfigEnv } from "./claude-config-env.ts"

/** A Claude Code plugin folder as teams publish them: a skill, PreToolUse/PostToolUse command hooks, an MCP server. */
const claudePlugin = (dir: string) => {
  writeTree(dir, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "safety", description: "Team safety rules", version: "1.0.0" }),
    "skills/review/SKILL.md": "---\nname: review\ndescription: Review a change against the team's checklist.\n---\nCheck tests first.\n",
    "hooks/hooks.json": JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh" }] }],
        PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/after.sh", timeout: 5 }] }],
        SessionStart: [{ hooks: [{ type: "command", command: "true" }] }],
        Stop: [{ hooks: [{ type: "command", command: "true" }] }],
      },
    }),
    // Exit 2 blocks with stderr; it reads the call from stdin as Claude Code sends it.
    "scripts/guard.sh":
      '#!/bin/sh\ninput=$(cat)\necho "$input" > "$CLAUDE_PROJECT_DIR/seen.json"\ncase "$input" in *"rm -rf"*) echo "no recursive deletes here" >&2; exit 2;; *"explode"*) echo boom >&2; exit 1;; esac\nexit 0\n',
    "scripts/after.sh": '#!/bin/sh\ncat > /dev/null\necho "remember to run the formatter" >&2\nexit 2\n',
    ".mcp.json": JSON.stringify({ mcpServers: { tickets: { command: "${CLAUDE_PLUGIN_ROOT}/bin/tickets", args: ["--stdio"] } } }),
  })
  chmodSync(join(dir, "scripts/guard.sh"), 0o755)
  chmodSync(join(dir, "scripts/after.sh"), 0o755)
}

describe("Claude Code plugin folders", () => {
  test("skills, a blocking PreToolUse hook (exit 2), PostToolUse feedback, .mcp.json servers; other events listed as not run", async () => {
    const root = project({ "a.txt": "x\n" })
    const { env } = claudeConfigEnv()
    claudePlugin(join(root, ".anvil", "plugins", "safety"))
    const problems: Array<string> = []
    const load = () => loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: (m) => problems.push(m) })

    const untrusted = await load()
    expect(untrusted.reports[0]).toMatchObject({ name: "safety", kind: "claude", status: "untrusted" })
    expect(pluginSkillFolders({ root, env, config: makeConfig({}, env) })).toEqual([])
    expect(pluginMcpServers({ root, env, config: makeConfig({}, env) })).toEqual([])
    expect(pluginMcpServers({ root, env, config: makeConfig({}, env), trustProject: true }).map((s) => s.name)).toEqual(["tickets"])

    await Effect.runPromise(makeTrust({ root, env }).trust({ kind: "plugin", name: "safety", content: { path: join(root, ".anvil/plugins/safety") } }))
    const set = await load()
    expect(set.reports[0]).toMatchObject({
      status: "loaded",
      description: "Team safety rules",
      skills: ["review"],
      hooks: ["PreToolUse(Bash)", "PostToolUse(Edit|Write)", "SessionStart(*)"],
      mcpServers: ["tickets"],
      unsupported: ["Stop hooks"],
    })
    expect(pluginMcpServers({ root, env, config: makeConfig({}, env) })).toEqual(set.mcpServers)
    expect(set.mcpServers).toEqual([
      { plugin: "safety", name: "tickets", source: "project", config: { command: join(root, ".anvil/plugins/safety/bin/tickets"), args: ["--stdio"] } },
    ])

    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const blocked = await callTool(root, "bash", { command: "rm -rf build" }, { tools, env })
    expect(blocked.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'safety': no recursive deletes here" })
    const seen = JSON.parse(readFileSync(join(root, "seen.json"), "utf8"))
    expect(seen).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" }, cwd: root })

    const allowed = await callTool(root, "bash", { command: "echo fine" }, { tools, env })
    expect(allowed.envelope.status).toBe("success")
    // Another exit code is reported, and the call goes on.
    const odd = await callTool(root, "bash", { command: "echo explode" }, { tools, env })
    expect(odd.envelope.status).toBe("success")
    expect(problems.some((p) => p.includes("exited with 1 (boom); it was skipped and the other hooks ran"))).toBe(true)

    const written = await callTool(root, "write", { path: "b.txt", content: "y\n" }, { tools, env })
    expect(written.envelope.text).toContain("PostToolUse hook feedback:\nremember to run the formatter")

    // The skill is in the catalogue once the plugin is trusted.
    const folders = pluginSkillFolders({ root, env, config: makeConfig({}, env) })
    const catalog = await Effect.runPromise(
      loadSkillCatalog(root, { compiled: true, skills: {} }, folders).pipe(Effect.provide(Config.layerFrom({}, env)), Effect.provide(PlatformLive)),
    )
    expect(catalog.skills.map((s) => [s.name, s.source])).toEqual([["review", "project"]])
  }, 30_000)

  test("a command's own timeout outlasts the host's hook limit; updatedInput changes the call; additionalContext reaches the model", async () => {
    const root = project({ "a.txt": "first\n" })
    const { config, env } = claudeConfigEnv()
    const answer = (json: unknown) => `cat > /dev/null; echo '${JSON.stringify(json)}'`
    writeTree(join(config, "anvil", "plugins", "team"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "team" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: {
          // Slower than plugins.hook_timeout_ms below, within its own timeout: its block must count.
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: "cat > /dev/null; sleep 1; echo 'slow review says no' >&2; exit 2", timeout: 10 }] },
            {
              matcher: "Write",
              hooks: [{ type: "command", command: answer({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { file_path: "moved.txt", content: "changed" } } }) }],
            },
          ],
          PostToolUse: [
            { matcher: "Read", hooks: [{ type: "command", command: answer({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "this file is generated" } }) }] },
          ],
        },
      }),
    })
    const problems: Array<string> = []
    const cfg = makeConfig({ plugins: { hook_timeout_ms: 200 } }, env)
    const set = await loadPlugins({ root, env, config: cfg, builtinNames: builtinNames(), onProblem: (m) => problems.push(m) })
    expect(set.reports[0]).toMatchObject({ name: "team", status: "loaded" })
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))

    const slow = await callTool(root, "bash", { command: "echo hi" }, { tools, env })
    expect(slow.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'team': slow review says no" })
    expect(problems).toEqual([])

    const written = await callTool(root, "write", { path: "b.txt", content: "y\n" }, { tools, env })
    expect(written.envelope.status).toBe("success")
    expect(readFileSync(join(root, "moved.txt"), "utf8")).toBe("changed")
    expect(existsSync(join(root, "b.txt"))).toBe(false)

    const read = await callTool(root, "read", { path: "a.txt" }, { tools, env })
    expect(read.envelope.text).toContain("first")
    expect(read.envelope.text).toContain("PostToolUse hook feedback:\nthis file is generated")
  }, 30_000)

  test("a command hook that cannot run, times out or fails is reported and skipped; the event's other hooks still run, a later block still blocks", async () => {
    const root = project({ "a.txt": "first\n" })
    const { config, env } = claudeConfigEnv()
    writeTree(join(config, "anvil", "plugins", "flaky"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "flaky" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "command", command: "/nonexistent/guard.sh" },
                { type: "command", command: "sleep 20", timeout: 1 },
                { type: "command", command: "echo '{not json'" },
                { type: "command", command: "cat > /dev/null; echo 'the last guard says no' >&2; exit 2" },
              ],
            },
          ],
          PostToolUse: [
            { matcher: "Read", hooks: [{ type: "command", command: "echo broken >&2; exit 1" }, { type: "command", command: "echo 'still checked' >&2; exit 2" }] },
          ],
        },
      }),
    })
    const problems: Array<string> = []
    const set = await loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: (m) => problems.push(m) })
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))
    const started = performance.now()
    const blocked = await callTool(root, "bash", { command: "echo hi" }, { tools, env })
    expect(performance.now() - started).toBeLessThan(15_000)
    expect(blocked.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'flaky': the last guard says no" })
    expect(problems.some((p) => p.startsWith("plugin 'flaky': PreToolUse hook '/nonexistent/guard.sh' could not run ("))).toBe(true)
    expect(problems.some((p) => p.startsWith("plugin 'flaky': PreToolUse hook 'sleep 20' timed out (timed out after 1000 ms)"))).toBe(true)
    // Timed out twice in a row, 'sleep 20' is skipped without waiting; the last guard still blocks.
    await callTool(root, "bash", { command: "echo hi" }, { tools, env })
    const third = await callTool(root, "bash", { command: "echo hi" }, { tools, env })
    expect(third.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'flaky': the last guard says no" })
    expect(problems.filter((p) => p.startsWith("plugin 'flaky': PreToolUse hook 'sleep 20' timed out (")).length).toBe(2)
    expect(problems.filter((p) => p.startsWith("plugin 'flaky': PreToolUse hook 'sleep 20' timed out 2 times in a row: it is skipped")).length).toBe(1)
    const read = await callTool(root, "read", { path: "a.txt" }, { tools, env })
    expect(read.envelope.status).toBe("success")
    expect(read.envelope.text).toContain("PostToolUse hook feedback:\nstill checked")
    expect(problems.some((p) => p.includes("PostToolUse hook 'echo broken >&2; exit 1' exited with 1 (broken)"))).toBe(true)
  }, 30_000)

  test("permissionDecision: allow spares the tool's question but not a configured ask or deny rule; ask puts the question to a call the rules allow", async () => {
    const root = project({ "a.txt": "first\n" })
    const { config, env } = claudeConfigEnv()
    const answer = (json: unknown) => `cat > /dev/null; echo '${JSON.stringify(json)}'`
    const decide = (decision: string, reason: string) => answer({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason } })
    writeTree(join(config, "anvil", "plugins", "team"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "team" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Write|Bash", hooks: [{ type: "command", command: decide("allow", "approved by policy") }] },
            { matcher: "Read", hooks: [{ type: "command", command: decide("ask", "reading is audited") }] },
            // The legacy form: decision "approve" is an allow.
            { matcher: "Edit", hooks: [{ type: "command", command: answer({ decision: "approve" }) }] },
          ],
        },
      }),
    })
    const asked: Array<string> = []
    const onAsk = (request: { tool: { name: string }; hook?: { decision: string; reason?: string } }) =>
      Effect.sync(() => {
        asked.push(`${request.tool.name}${request.hook ? ` (${request.hook.decision}: ${request.hook.reason})` : ""}`)
        return { deny: "the person said no" } as const
      })
    const run = async (permission: Record<string, unknown>, tool: string, params: Record<string, unknown>) => {
      const cfg = makeConfig({ permission }, env)
      const set = await loadPlugins({ root, env, config: cfg, builtinNames: builtinNames(), onProblem: () => {} })
      const tools = toolsWithPlugins(builtinTools, set, () => {})
      return (await callTool(root, tool, params, { tools, env, configOverrides: { permission }, onAsk: onAsk as never })).envelope
    }

    // write asks by default: the hook's allow spares the question.
    expect((await run({}, "write", { path: "b.txt", content: "y\n" })).status).toBe("success")
    expect((await run({}, "edit", { path: "b.txt", old_string: "y", new_string: "z" })).status).toBe("success")
    expect(asked).toEqual([])
    // A configured ask rule is still asked; a deny rule still denies, and no one is asked.
    const rule = await run({ bash: { "echo*": "ask" } }, "bash", { command: "echo hi" })
    expect(rule.error).toMatchObject({ code: "PERMISSION_DENIED", message: "the person said no" })
    expect(asked).toEqual(["bash (allow: plugin 'team': approved by policy)"])
    const denied = await run({ write: "deny" }, "write", { path: "c.txt", content: "n\n" })
    expect(denied.error?.code).toBe("PERMISSION_DENIED")
    expect(existsSync(join(root, "c.txt"))).toBe(false)
    expect(asked).toHaveLength(1)
    // read is allowed by default: the hook's ask puts the question, with its reason.
    const read = await run({}, "read", { path: "a.txt" })
    expect(read.error).toMatchObject({ code: "PERMISSION_DENIED", message: "the person said no" })
    expect(asked[1]).toBe("read (ask: plugin 'team': reading is audited)")
  }, 30_000)

  test("matchers: names mapped both ways, alternatives, regexes, empty and *", () => {
    expect(matcherSelects("Bash", "bash")).toBe(true)
    expect(matcherSelects("Edit|Write", "write")).toBe(true)
    expect(matcherSelects("Edit|Write", "read")).toBe(false)
    expect(matcherSelects("", "grep")).toBe(true)
    expect(matcherSelects("*", "grep")).toBe(true)
    expect(matcherSelects("mcp__.*", "mcp__gh__issues")).toBe(true)
    expect(matcherSelects("text_stats", "text_stats")).toBe(true)
    expect(matcherSelects("Bash(", "bash")).toBe(false)
  })
})

describe("skills from the other agents' folders", () => {
  test(".agents/skills and .claude/skills, project and user; .anvil/skills wins a clash and the clash is reported", async () => {
    const skill = (name: string, text: string) => `---\nname: ${name}\ndescription: ${text}\n---\nBody.\n`
    const root = project({
      ".anvil/skills/deploy/SKILL.md": skill("deploy", "anvil's deploy"),
      ".agents/skills/deploy/SKILL.md": skill("deploy", "the agents folder's deploy"),
      ".agents/skills/lint/SKILL.md": skill("lint", "Lint the code."),
      ".claude/skills/pdf/SKILL.md": skill("pdf", "Work with PDF files."),
    })
    const home = tempDir("anvil-skill-home-")
    writeTree(home, { ".claude/skills/notes/SKILL.md": skill("notes", "Take notes."), ".agents/skills/lint/SKILL.md": skill("lint", "user lint") })
    const catalog = await Effect.runPromise(
      loadSkillCatalog(root, { compiled: true, skills: {} }).pipe(Effect.provide(Config.layerFrom({}, { HOME: home })), Effect.provide(PlatformLive)),
    )
    expect(catalog.skills.map((s) => [s.name, s.source, s.description])).toEqual([
      ["deploy", "project", "anvil's deploy"],
      ["lint", "project", "Lint the code."],
      ["notes", "user", "Take notes."],
      ["pdf", "project", "Work with PDF files."],
    ])
    expect(catalog.skills[0]!.overrides).toEqual([{ source: "project", path: join(root, ".agents/skills/deploy/SKILL.md") }])
    expect(catalog.skills[1]!.overrides).toEqual([{ source: "user", path: join(home, ".agents/skills/lint/SKILL.md") }])
  })
})
