import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir } from "../support/harness.ts"

setDefaultTimeout(60_000)

/**
 * Through the compiled binary: keys of Claude Code's settings.json written into anvil.json get where the setting goes,
 * not the nearest anvil key (`hooks` was "did you mean 'tools'?", `env` "the nearest valid key is 'git'").
 */
describe("Claude Code's settings keys in anvil.json", () => {
  test("each is a warning that says where that setting goes; other unknown keys still get the nearest", async () => {
    const root = project({})
    const env = { HOME: tempDir("anvil-home-") }
    writeFileSync(
      join(root, "anvil.json"),
      '{\n  "hooks": {"PreToolUse": []},\n  "permissions": {"allow": ["Bash(ls)"]},\n  "enabledPlugins": {},\n  "env": {"A": "1"},\n  "disableAllHooks": true,\n  "tols": {}\n}\n',
    )
    const r = await runBinary(["config"], { cwd: root, env })
    expect(r.code).toBe(0)
    const lines = r.stderr.trim().split("\n")
    expect(lines[0]).toEndWith("anvil.json:2:3: unknown key 'hooks', a Claude Code setting: Claude Code's hooks are read from .claude/settings.json (the project's, once trusted) and ~/.claude/settings.json, not from anvil.json; anvil's own hooks come from plugins (see Writing a plugin in the README)")
    expect(lines[1]).toContain(`anvil.json:3:3: unknown key 'permissions', a Claude Code setting: Claude Code's permissions lists are not read by anvil; write anvil's "permission"`)
    expect(lines[2]).toContain("anvil.json:4:3: unknown key 'enabledPlugins', a Claude Code setting: Claude Code's enabledPlugins is read from its own settings.json files")
    expect(lines[3]).toContain("anvil.json:5:3: unknown key 'env', a Claude Code setting: anvil.json sets no environment")
    expect(lines[4]).toContain("anvil.json:6:3: unknown key 'disableAllHooks', a Claude Code setting:")
    expect(lines[5]).toEndWith("anvil.json:7:3: unknown key 'tols' — did you mean 'tools'?")
    for (const line of lines.slice(0, 5)) expect(line).not.toContain("did you mean")
  })
})
