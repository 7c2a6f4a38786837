import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"

// Permission and trust contracts through the compiled binary: read deny rules hide paths from the search tools,
// the project's plugin and MCP time limits need trust, broken hook matchers and duplicate keys are reported.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

/** A git repository with `tree`, and a clean home whose own anvil.json is `user` (when given). */
const repo = (tree: Record<string, string>, user?: unknown) => {
  const root = project(tree, { marker: false })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  const home = tempDir("anvil-home-")
  if (user !== undefined) {
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  }
  return { root, env: { HOME: home } }
}

const tool = async (r: { root: string; env: Record<string, string> }, name: string, params: unknown) => {
  const out = await runBinary(["tool", name, JSON.stringify(params)], { cwd: r.root, env: r.env })
  return { ...out, envelope: JSON.parse(out.stdout) }
}

describe("duplicate keys in anvil.json", () => {
  test("a permission rule written twice is a warning naming both lines; --strict refuses", async () => {
    const r = repo({
      "a.txt": "alpha\n",
      "anvil.json": `{\n  "permission": {\n    "read": { "*.txt": "deny", "*.txt": "allow" }\n  }\n}\n`,
    })
    const out = await tool(r, "read", { path: "a.txt" })
    expect(out.stderr).toContain(
      `anvil: warning: ${join(r.root, "anvil.json")}:3:15: 'permission.read.*.txt' is set more than once: this value ("deny") is ignored, the one at line 3 ("allow") is used; remove one of them`,
    )
    expect(out.envelope.status).toBe("success")
    const strict = await runBinary(["--strict", "tool", "read", '{"path":"a.txt"}'], { cwd: r.root, env: r.env })
    expect(strict.code).toBe(2)
  })
})

describe("Claude Code hook matchers", () => {
  test("a matcher that is no valid regular expression is reported by anvil plugins (text and --json) and when a tool runs", async () => {
    const hook = (matcher: string) => ({ matcher, hooks: [{ type: "command", command: "exit 2" }] })
    const r = repo({
      "a.txt": "alpha\n",
      ".anvil/plugins/guard/.claude-plugin/plugin.json": JSON.stringify({ name: "guard" }),
      ".anvil/plugins/guard/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [hook("Bash("), hook("Read|Grep")], PostToolUse: [hook("[")] } }),
    })
    const trust = await runBinary(["plugins", "trust", "guard"], { cwd: r.root, env: r.env })
    expect(trust.code).toBe(0)
    const file = join(r.root, ".anvil/plugins/guard/hooks/hooks.json")
    const list = await runBinary(["plugins"], { cwd: r.root, env: r.env })
    expect(list.stdout).toContain(`warning: ${file}: the PreToolUse matcher "Bash(" is not a valid regular expression (`)
    expect(list.stdout).toContain(`warning: ${file}: the PostToolUse matcher "[" is not a valid regular expression (`)
    expect(list.stdout).toContain("so its hook never runs; fix the matcher")
    const json = JSON.parse((await runBinary(["plugins", "--json"], { cwd: r.root, env: r.env })).stdout)
    expect(json.plugins[0].status).toBe("loaded")
    expect(json.plugins[0].warnings).toHaveLength(2)
    // The valid matcher still works (its hook blocks read); the notice is on stderr.
    const read = await tool(r, "read", { path: "a.txt" })
    expect(read.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(read.stderr).toContain(`anvil: plugin 'guard': ${file}: the PreToolUse matcher "Bash(" is not a valid regular expression`)
  })
})
