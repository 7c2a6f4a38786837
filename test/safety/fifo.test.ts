import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"

// A FIFO (which a confined command can make in the project) given to every tool that takes a path: an
// envelope at once, never a call that waits for a writer. Named like source files too, so the LSP tools
// reach the point where they would read it.
const FIFO_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["read", { path: "p.py" }],
  ["edit", { path: "p.py", old_string: "a", new_string: "b" }],
  ["multiedit", { path: "p.py", edits: [{ old_string: "a", new_string: "b" }] }],
  ["write", { path: "p.py", content: "x" }],
  ["patch", { patch: "*** Begin Patch\n*** Update File: p.py\n@@\n-a\n+b\n*** End Patch" }],
  ["grep", { pattern: "a", path: "p.py" }],
  ["grep", { pattern: "a" }],
  ["list", { path: "." }],
  ["glob", { pattern: "**/*" }],
  ["git_add", { paths: ["p.py"] }],
  ["lsp_diagnostics", { path: "p.py" }],
  ["lsp_hover", { path: "s.sh", line: 1, character: 1 }],
  ["lsp_definition", { path: "p.py", line: 1, character: 1 }],
]

describe("a FIFO in the project", () => {
  test.each(FIFO_CALLS.map(([tool, params]) => [tool, JSON.stringify(params), params] as const))("%s %s answers without waiting for a writer", async (tool, _shown, params) => {
    const root = project({})
    Bun.spawnSync(["git", "init", "-q", root])
    for (const name of ["p.py", "s.sh"]) expect(Bun.spawnSync(["mkfifo", join(root, name)]).exitCode).toBe(0)
    const started = performance.now()
    const { envelope } = await callTool(root, tool, params)
    expect(performance.now() - started).toBeLessThan(5_000)
    if (tool.startsWith("lsp_")) expect(envelope.error?.message).toContain("not a regular file (FIFO)")
  }, 10_000)
})
