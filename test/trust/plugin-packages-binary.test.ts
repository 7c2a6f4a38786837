import { expect, setDefaultTimeout, test } from "bun:test"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Through the compiled binary: what a project plugin's installed packages, lockfiles and execute bits change is
// new code that may run, so each change asks for trust again.
setDefaultTimeout(120_000)

const sandbox = (tree: Record<string, string>) => {
  const root = project(tree)
  const base = tempDir("anvil-plugin-packages-")
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  mkdirSync(env.HOME, { recursive: true })
  const anvil = (args: ReadonlyArray<string>) => runBinary(args, { cwd: root, env })
  const status = async (name: string) => JSON.parse((await anvil(["plugins", "--json"])).stdout).plugins.find((p: any) => p.name === name)
  return { root, anvil, status }
}

test("a changed package in node_modules that the plugin imports, or a lockfile at any depth, asks again before the new code runs", async () => {
  const dir = ".anvil/plugins/dep"
  const s = sandbox({
    [`${dir}/package.json`]: JSON.stringify({ name: "dep", type: "module", main: "index.ts" }),
    [`${dir}/index.ts`]: `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\nimport word from "tiny"\nexport default defineTool({ name: "dep_word", description: "x", readOnly: true, parameters: Schema.Struct({}), run: () => word() })\n`,
    [`${dir}/node_modules/tiny/package.json`]: JSON.stringify({ name: "tiny", main: "index.js" }),
    [`${dir}/node_modules/tiny/index.js`]: `module.exports = () => "reviewed code"\n`,
  })
  const word = () => s.anvil(["tool", "dep_word", "{}", "--text"])
  expect((await s.anvil(["plugins", "trust", "dep"])).code).toBe(0)
  expect((await word()).stdout).toContain("reviewed code")

  writeFileSync(join(s.root, dir, "node_modules/tiny/index.js"), `module.exports = () => "new code"\n`)
  const refused = await word()
  expect(refused.code).toBe(2)
  expect(refused.stdout).not.toContain("new code")
  expect(refused.stderr).toContain("project plugin 'dep'")
  expect(refused.stderr).toContain("is changed since it was trusted and was not loaded; review it, then run 'anvil plugins trust dep'")
  expect(await s.status("dep")).toMatchObject({ status: "untrusted", trust: "changed" })
  expect((await s.anvil(["plugins", "trust", "dep"])).stdout).toContain("its changed code is trusted now")
  expect((await word()).stdout).toContain("new code")

  for (const lockfile of ["package-lock.json", "node_modules/tiny/yarn.lock", "scripts/setup/bun.lock"]) {
    writeTree(join(s.root, dir), { [lockfile]: `{"changed": ${JSON.stringify(lockfile)}}\n` })
    expect(await s.status("dep")).toMatchObject({ status: "untrusted", trust: "changed" })
    expect((await s.anvil(["plugins", "trust", "dep"])).code).toBe(0)
    expect(await s.status("dep")).toMatchObject({ status: "loaded" })
  }
})

test("a Claude Code plugin's hook script made executable asks again: the hook could not run it before", async () => {
  const dir = ".anvil/plugins/guard"
  const s = sandbox({
    [`${dir}/.claude-plugin/plugin.json`]: JSON.stringify({ name: "guard" }),
    [`${dir}/hooks/hooks.json`]: JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh" }] }] },
    }),
    [`${dir}/scripts/check.sh`]: `#!/bin/sh\necho "blocked by check.sh" >&2\nexit 2\n`,
  })
  chmodSync(join(s.root, dir, "scripts/check.sh"), 0o644)
  expect((await s.anvil(["plugins", "trust", "guard"])).code).toBe(0)
  expect(await s.status("guard")).toMatchObject({ status: "loaded" })
  chmodSync(join(s.root, dir, "scripts/check.sh"), 0o755)
  expect(await s.status("guard")).toMatchObject({ status: "untrusted", trust: "changed" })
  const bash = await s.anvil(["tool", "bash", '{"command": "echo ran"}'])
  expect(bash.stdout).toContain("ran")
  expect(bash.stderr).toContain("anvil plugins trust guard")
  // Trusted again, the hook runs the script and blocks; a mode change beyond the execute bits asks nothing.
  expect((await s.anvil(["plugins", "trust", "guard"])).code).toBe(0)
  chmodSync(join(s.root, dir, "scripts/check.sh"), 0o555)
  expect(await s.status("guard")).toMatchObject({ status: "loaded" })
  const blocked = await s.anvil(["tool", "bash", '{"command": "echo ran"}'])
  expect(JSON.parse(blocked.stdout).error.message).toContain("blocked by check.sh")
})
