import { describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { claudeConfigDir } from "../../src/plugins/places.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { runBinary } from "../support/binary.ts"
import { builtinTools, callTool, project, tempDir } from "../support/harness.ts"

/**
 * The hooks of your own Claude Code settings (`~/.claude/settings.json`, or under `$CLAUDE_CONFIG_DIR`) run as Claude
 * Code runs them, as your own plugin `claude-user-settings`: no trust to give, before the project's. Claude Code's merged
 * `disableAllHooks` (yours, then the project's two files; the last that sets it wins) turns the project's off; yours
 * are turned off by your file alone.
 */

const guard = (word: string) => `#!/bin/sh\ncase "$(cat)" in *"${word}"*) echo "no ${word}, says the user" >&2; exit 2;; esac\n`
const settings = (hooks: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ model: "opus", hooks, ...extra }, null, 2)
const bashHook = (command: string) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] })

/** A clean HOME whose `.claude/settings.json` runs a guard against `word` (the script in `~/.claude/hooks/`). */
const userHome = (word: string, extra: Record<string, unknown> = {}, configDir?: string) => {
  const base = tempDir("anvil-user-hooks-")
  const home = join(base, "home")
  const claude = configDir ?? join(home, ".claude")
  mkdirSync(join(claude, "hooks"), { recursive: true })
  writeFileSync(join(claude, "hooks", "guard.sh"), guard(word))
  chmodSync(join(claude, "hooks", "guard.sh"), 0o755)
  writeFileSync(join(claude, "settings.json"), settings(bashHook(join(claude, "hooks", "guard.sh")), extra))
  mkdirSync(home, { recursive: true })
  return { XDG_CONFIG_HOME: join(base, "config"), HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", ...(configDir ? { CLAUDE_CONFIG_DIR: configDir } : {}) }
}

const load = (root: string, env: Record<string, string>) => loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: () => {} })

describe("your ~/.claude/settings.json hooks", () => {
  test("run without a trust prompt, listed as your plugin claude-user-settings; CLAUDE_CONFIG_DIR moves them", async () => {
    const root = project({ "a.txt": "x\n" })
    const env = userHome("rm -rf")
    const set = await load(root, env)
    expect(set.reports).toMatchObject([{ name: "claude-user-settings", source: "user", kind: "claude", status: "loaded", path: join(env.HOME, ".claude"), hooks: ["PreToolUse(Bash)"] }])
    expect(set.commands).toEqual([])
    const tools = toolsWithPlugins(builtinTools, set, () => {})
    const blocked = await callTool(root, "bash", { command: "rm -rf build" }, { tools, env })
    expect(blocked.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-user-settings': no rm -rf, says the user" })
    expect((await callTool(root, "bash", { command: "echo fine" }, { tools, env })).envelope.status).toBe("success")

    const elsewhere = userHome("curl", {}, join(tempDir("anvil-claude-dir-"), "cc"))
    expect((await load(root, elsewhere)).reports).toMatchObject([{ name: "claude-user-settings", path: elsewhere.CLAUDE_CONFIG_DIR, hooks: ["PreToolUse(Bash)"] }])
    // A relative CLAUDE_CONFIG_DIR is not followed (the sandbox guards the folder it can name): ~/.claude stands.
    const relative = { ...env, CLAUDE_CONFIG_DIR: "cc" }
    expect((await load(root, relative)).reports).toMatchObject([{ name: "claude-user-settings", path: join(env.HOME, ".claude") }])
    expect(claudeConfigDir(relative)).toBe(join(env.HOME, ".claude"))
    // Without hooks in it, or without the file, there is no such plugin.
    writeFileSync(join(env.HOME, ".claude", "settings.json"), JSON.stringify({ model: "opus" }))
    expect((await load(root, env)).reports).toEqual([])
  }, 30_000)

  test("beside the project's: both run, yours first; disableAllHooks merged as Claude Code merges settings, yours yours alone", async () => {
    const projectGuard = { ".claude/hooks/guard.sh": guard("drop table") }
    const both = (user: Record<string, unknown>, projectSettings: Record<string, unknown>) => {
      const root = project({ "a.txt": "x\n", ...projectGuard, ".claude/settings.json": settings(bashHook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'), projectSettings) })
      chmodSync(join(root, ".claude/hooks/guard.sh"), 0o755)
      return { root, env: userHome("rm -rf", user) }
    }
    const { root, env } = both({}, {})
    await Effect.runPromise(makeTrust({ root, env }).trust({ kind: "plugin", name: "claude-settings", content: { path: join(root, ".claude") } }))
    const set = await load(root, env)
    expect(set.reports.map((r) => [r.name, r.source, r.status, r.hooks])).toEqual([
      ["claude-user-settings", "user", "loaded", ["PreToolUse(Bash)"]],
      ["claude-settings", "project", "loaded", ["PreToolUse(Bash)"]],
    ])
    const tools = toolsWithPlugins(builtinTools, set, () => {})
    expect((await callTool(root, "bash", { command: "rm -rf x" }, { tools, env })).envelope.error?.message).toContain("no rm -rf, says the user")
    expect((await callTool(root, "bash", { command: "echo drop table" }, { tools, env })).envelope.error?.message).toContain("no drop table")

    // Yours says true: no settings hook runs, the project's included (they load, with no hooks).
    const off = both({ disableAllHooks: true }, {})
    expect((await load(off.root, off.env)).reports.filter((r) => r.source === "user").map((r) => r.hooks)).toEqual([[]])
    // The project's file comes later and says false: its hooks run again; yours stay off, as you said.
    const on = both({ disableAllHooks: true }, { disableAllHooks: false })
    await Effect.runPromise(makeTrust({ root: on.root, env: on.env }).trust({ kind: "plugin", name: "claude-settings", content: { path: join(on.root, ".claude") } }))
    expect((await load(on.root, on.env)).reports.map((r) => [r.name, r.hooks])).toEqual([
      ["claude-user-settings", []],
      ["claude-settings", ["PreToolUse(Bash)"]],
    ])
    // A repository does not switch off your guards: its disableAllHooks turns off its own hooks only.
    const theirs = both({}, { disableAllHooks: true })
    await Effect.runPromise(makeTrust({ root: theirs.root, env: theirs.env }).trust({ kind: "plugin", name: "claude-settings", content: { path: join(theirs.root, ".claude") } }))
    expect((await load(theirs.root, theirs.env)).reports.map((r) => [r.name, r.hooks])).toEqual([
      ["claude-user-settings", ["PreToolUse(Bash)"]],
      ["claude-settings", []],
    ])
  }, 30_000)

  test("a project that is also the home folder keeps its settings behind the project's trust", async () => {
    const root = project({ "a.txt": "x\n" })
    const env = { ...userHome("rm -rf"), HOME: root }
    mkdirSync(join(root, ".claude"), { recursive: true })
    writeFileSync(join(root, ".claude", "settings.json"), settings(bashHook("echo no >&2; exit 2")))
    expect((await load(root, env)).reports.map((r) => [r.name, r.status])).toEqual([["claude-settings", "untrusted"]])
  }, 30_000)

  test("through the binary with a clean HOME: listed by anvil plugins, and the hook blocks anvil tool bash", async () => {
    const root = project({ "a.txt": "x\n" })
    const env = userHome("rm -rf")
    const listed = await runBinary(["plugins", "--json"], { cwd: root, env })
    expect(JSON.parse(listed.stdout).plugins).toMatchObject([{ name: "claude-user-settings", source: "user", status: "loaded", hooks: ["PreToolUse(Bash)"] }])
    const run = await runBinary(["tool", "bash", '{"command": "rm -rf build"}'], { cwd: root, env })
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'claude-user-settings': no rm -rf, says the user" })
  }, 60_000)
})
