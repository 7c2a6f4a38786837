import { describe, expect, test } from "bun:test"
import { chmodSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { pluginCommands, pluginSkillFolders } from "../../src/plugins/plugin-extras.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { builtinTools, callTool, project } from "../support/harness.ts"
import { claudeConfigEnv } from "./claude-config-env.ts"

/**
 * The hooks of the project's `.claude/settings.json` and `.claude/settings.local.json` run as Claude Code runs them,
 * once the user trusted them (as every project plugin): listed as the project plugin `claude-settings`.
 */

const guard = '#!/bin/sh\ncase "$(cat)" in *"rm -rf"*) echo "no rm -rf in this repository" >&2; exit 2;; esac\n'

const setup = (files: Record<string, string>) => {
  const root = project({ "a.txt": "x\n", ".claude/hooks/guard.sh": guard, ".claude/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy.\n---\nTidy.\n", ".claude/commands/ship.md": "Ship it.\n", ...files })
  chmodSync(join(root, ".claude/hooks/guard.sh"), 0o755)
  const { env } = claudeConfigEnv()
  const load = () => loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: () => {} })
  const trust = () => Effect.runPromise(makeTrust({ root, env }).trust({ kind: "plugin", name: "claude-settings", content: { path: join(root, ".claude") } }))
  return { root, env, load, trust }
}

const settings = (hooks: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ permissions: { allow: [] }, hooks, ...extra }, null, 2)
const bashGuard = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] }] }

describe("the project's .claude/settings.json hooks", () => {
  test("wait for trust, then run; the folder's skills and commands stay the project's own, not the plugin's", async () => {
    const { root, env, load, trust } = setup({ ".claude/settings.json": settings(bashGuard) })
    const untrusted = await load()
    expect(untrusted.reports).toMatchObject([{ name: "claude-settings", source: "project", kind: "claude", status: "untrusted", path: join(root, ".claude") }])

    await trust()
    const set = await load()
    expect(set.reports[0]).toMatchObject({ name: "claude-settings", status: "loaded", hooks: ["PreToolUse(Bash)"], skills: [], mcpServers: [] })
    expect(set.commands).toEqual([])
    expect(set.agents).toEqual([])
    expect(pluginSkillFolders({ root, env, config: makeConfig({}, env) })).toEqual([])
    expect(pluginCommands({ root, env, config: makeConfig({}, env) })).toEqual([])

    const tools = toolsWithPlugins(builtinTools, set, () => {})
    const blocked = await callTool(root, "bash", { command: "rm -rf build" }, { tools, env })
    expect(blocked.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-settings': no rm -rf in this repository" })
    const fine = await callTool(root, "bash", { command: "echo fine" }, { tools, env })
    expect(fine.envelope.status).toBe("success")
  }, 30_000)

  test("settings.local.json adds its hooks; disableAllHooks in either turns them off; a broken file is a placed warning", async () => {
    const post = { PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "cat >/dev/null; echo local >&2; exit 2" }] }] }
    const both = setup({ ".claude/settings.json": settings(bashGuard), ".claude/settings.local.json": settings(post) })
    await both.trust()
    expect((await both.load()).reports[0]).toMatchObject({ status: "loaded", hooks: ["PreToolUse(Bash)", "PostToolUse(Read)"] })

    const off = setup({ ".claude/settings.json": settings(bashGuard), ".claude/settings.local.json": JSON.stringify({ disableAllHooks: true, hooks: {} }) })
    await off.trust()
    expect((await off.load()).reports[0]).toMatchObject({ status: "loaded", hooks: [] })

    const broken = setup({ ".claude/settings.json": '{"hooks": {"PreToolUse": [}}' })
    await broken.trust()
    const report = (await broken.load()).reports[0]!
    expect(report).toMatchObject({ status: "loaded", hooks: [] })
    expect(report.warnings).toEqual([`${join(broken.root, ".claude/settings.json")}:1:27: not valid JSON (Unexpected token '}'; ValueExpected), so none of its hooks run. Fix the file`])
  }, 30_000)

  test("a project without hooks in its .claude settings has no such plugin", async () => {
    const { load } = setup({ ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(ls)"] } }) })
    expect((await load()).reports).toEqual([])
  })
})
