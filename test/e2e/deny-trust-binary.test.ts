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
