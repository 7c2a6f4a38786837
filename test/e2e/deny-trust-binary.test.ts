import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"
import { project, tempDir } from "../support/harness.ts"

// Permission and trust contracts through the compiled binary: read deny rules hide paths from the search tools,
// the project's plugin and MCP time limits need trust, broken hook matchers and duplicate keys are reported.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const repo = binaryRepo
const tool = binaryTool

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
    // Each names the file, the line and column of the matcher, and its place in the file.
    expect(list.stdout).toContain(`warning: ${file}:1:36: hooks.PreToolUse[0].matcher: the PreToolUse matcher "Bash(" is not a valid regular expression (`)
    expect(list.stdout).toMatch(/warning: \S+hooks\.json:1:\d+: hooks\.PostToolUse\[0\]\.matcher: the PostToolUse matcher "\[" is not a valid regular expression \(/)
    expect(list.stdout).toContain("so its hook never runs; fix the matcher")
    const json = JSON.parse((await runBinary(["plugins", "--json"], { cwd: r.root, env: r.env })).stdout)
    expect(json.plugins[0].status).toBe("loaded")
    expect(json.plugins[0].warnings).toHaveLength(2)
    // The valid matcher still works (its hook blocks read); the notice is on stderr.
    const read = await tool(r, "read", { path: "a.txt" })
    expect(read.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(read.stderr).toContain(`anvil: plugin 'guard': ${file}:1:36: hooks.PreToolUse[0].matcher: the PreToolUse matcher "Bash(" is not a valid regular expression`)
  })
})

describe("trust: the project's plugin and MCP time limits and plugin paths", () => {
  const guard = `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ name: "guard", api: 1, hooks: { "tool.before": (e) => (e.tool === "bash" ? { deny: "guarded" } : undefined) } })\n`

  test("load/call time limits and mcp.startup_timeout_ms other than yours are ignored and reported until trusted", async () => {
    const home = tempDir("anvil-home-")
    mkdirSync(join(home, ".config", "anvil", "plugins"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "plugins", "guard.ts"), guard)
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ plugins: { call_timeout_ms: 5000 } }))
    const root = project({
      "a.txt": "alpha\n",
      "anvil.json": JSON.stringify({ plugins: { load_timeout_ms: 1, call_timeout_ms: 900000 }, mcp: { startup_timeout_ms: 600000 } }),
    }, { marker: false })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const env = { HOME: home }
    const config = JSON.parse((await runBinary(["config", "--json"], { cwd: root, env })).stdout)
    const keys = config.ignored.map((i: { key: string }) => i.key).sort()
    expect(keys).toEqual(["mcp.startup_timeout_ms", "plugins.call_timeout_ms", "plugins.load_timeout_ms"])
    const value = (key: string) => config.settings.find((s: { key: string }) => s.key === key).value
    expect([value("plugins.load_timeout_ms"), value("plugins.call_timeout_ms"), value("mcp.startup_timeout_ms")]).toEqual([10000, 5000, 10000])
    const read = await tool({ root, env }, "read", { path: "a.txt" })
    expect(read.stderr).toContain("sets plugins.load_timeout_ms: 1, plugins.call_timeout_ms: 900000, mcp.startup_timeout_ms: 600000, but those settings are not trusted")
    // The guard loaded within the user's limit and still refuses.
    const list = await runBinary(["plugins", "--json"], { cwd: root, env })
    expect(JSON.parse(list.stdout).plugins.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([["guard", "loaded"]])
    const trusted = await runBinary(["config", "trust", "mcp"], { cwd: root, env })
    expect(trusted.code).toBe(0)
    const after = JSON.parse((await runBinary(["config", "--json"], { cwd: root, env })).stdout)
    expect(after.ignored.map((i: { key: string }) => i.key).sort()).toEqual(["plugins.call_timeout_ms", "plugins.load_timeout_ms"])
    expect(after.settings.find((s: { key: string }) => s.key === "mcp.startup_timeout_ms").value).toBe(600000)
  })

  test("the project's plugins.paths add to yours: your plugin folder stays loaded, what the project adds needs trust", async () => {
    const home = tempDir("anvil-home-")
    const mine = tempDir("anvil-mine-")
    writeFileSync(join(mine, "guard.ts"), guard)
    const theirs = tempDir("anvil-theirs-")
    writeFileSync(join(theirs, "extra.ts"), `export default []\n`)
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ plugins: { paths: [mine] } }))
    const root = project({ "anvil.json": JSON.stringify({ plugins: { paths: [theirs] } }) }, { marker: false })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const env = { HOME: home }
    const list = JSON.parse((await runBinary(["plugins", "--json"], { cwd: root, env })).stdout)
    expect(list.plugins.map((p: { name: string; source: string; status: string }) => [p.name, p.source, p.status])).toEqual([
      ["guard", "user", "loaded"],
      ["extra", "project", "untrusted"],
    ])
    const bash = await tool({ root, env }, "bash", { command: "echo hi" })
    expect(bash.envelope.error.message).toContain("guarded")
  })
})

describe("read deny rules hide paths from grep, glob and list", () => {
  const tree = {
    "a.txt": "TOKEN=public\n",
    "src/app.ts": "const TOKEN = 1\n",
    "src/keys/prod.pem": "TOKEN=secret-pem\n",
    "secret/one.txt": "TOKEN=secret-one\n",
    "secret/deep/two.txt": "TOKEN=secret-two\n",
    ".env": "TOKEN=secret-env\n",
    "config/.env": "TOKEN=secret-env2\n",
    "docs/readme.md": "TOKEN in docs\n",
  }
  const rules = { permission: { read: { "secret/**": "deny", ".env": "deny", "src/keys": "deny" } } }

  for (const engine of ["auto", "builtin"] as const) {
    test(`grep (${engine} engine): denied files are neither shown nor counted, in every mode`, async () => {
      const r = repo(tree, { ...rules, tools: { grep: { engine } } })
      for (const mode of ["content", "files_with_matches", "count"]) {
        const out = await tool(r, "grep", { pattern: "TOKEN", output_mode: mode })
        // The built-in engine's answers are partial (it says why ripgrep did not run).
        expect(out.envelope.status).toBe(engine === "auto" ? "success" : "partial")
        expect(out.stdout).not.toContain("secret")
        expect(out.envelope.data.total_files).toBe(3)
      }
      // Not searched: neither engine opens a denied file.
      const searched = (await tool(r, "grep", { pattern: "TOKEN", output_mode: "count" })).envelope.stats.files_searched
      if (searched !== undefined) expect(searched).toBe(3)
      const sub = await tool(r, "grep", { pattern: "TOKEN", path: "src", output_mode: "files_with_matches" })
      expect(sub.envelope.data.files).toEqual(["src/app.ts"])
    })
  }

  test("glob and list leave denied files and folders out, totals included", async () => {
    const r = repo(tree, rules)
    const glob = await tool(r, "glob", { pattern: "**/*", include_hidden: true })
    expect(glob.envelope.data.paths).toEqual(["a.txt", "docs/readme.md", "src/app.ts"])
    expect(glob.envelope.data.count).toBe(3)
    // Folders a pattern names: a denied one is not among them.
    const dirs = await tool(r, "glob", { pattern: "**/", include_hidden: true })
    expect(dirs.envelope.data.paths).toEqual(["config/", "docs/", "src/"])
    const list = await tool(r, "list", { include_hidden: true })
    expect(list.envelope.data.entries.map((e: { name: string }) => e.name)).toEqual([".git", "config", "docs", "src", "a.txt"])
    expect(list.envelope.stats.total_entries).toBe(5)
    // Not counted among the hidden entries either (.git is the only one).
    const plain = await tool(r, "list", {})
    expect(plain.envelope.stats.hidden).toBe(1)
    const config = await tool(r, "list", { path: "config", include_hidden: true })
    expect(config.envelope.text).toContain("(empty directory)")
    // A denied folder is not even walked: its entries are not among those visited.
    const all = await tool(r, "glob", { pattern: "**/*.txt", include_hidden: true })
    const open = await tool(repo(tree, {}), "glob", { pattern: "**/*.txt", include_hidden: true })
    expect(open.envelope.stats.visited_entries - all.envelope.stats.visited_entries).toBe(4)
    const src = await tool(r, "list", { path: "src" })
    expect(src.envelope.data.entries.map((e: { name: string }) => e.name)).toEqual(["app.ts"])
  })

  test("a search rooted in a denied place is refused as read refuses it, naming the rule", async () => {
    const r = repo(tree, rules)
    const read = await tool(r, "read", { path: "secret/one.txt" })
    expect(read.envelope.error.code).toBe("PERMISSION_DENIED")
    for (const [name, params] of [
      ["grep", { pattern: "TOKEN", path: "secret" }],
      ["grep", { pattern: "TOKEN", path: "secret/deep" }],
      ["grep", { pattern: "TOKEN", path: ".env" }],
      ["glob", { pattern: "*", path: "secret" }],
      ["list", { path: "secret/deep" }],
      ["list", { path: "src/keys" }],
    ] as const) {
      const out = await tool(r, name, params)
      expect(out.envelope.error.code).toBe("PERMISSION_DENIED")
      expect(out.envelope.error.message).toContain(`is denied by the rule "read": {`)
      expect(out.envelope.error.message).toContain("your own settings")
      expect(out.stdout).not.toContain("secret-")
    }
  })

  test("a whole-tool read deny refuses every search; a link into a denied folder is refused too", async () => {
    const r = repo(tree, { permission: { read: "deny" } })
    const out = await tool(r, "grep", { pattern: "TOKEN" })
    expect(out.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(out.envelope.error.message).toContain(`the rule "read": "deny"`)
  })
})
