import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runAnvil, toolResults } from "../support/anvil-cli.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// A deny rule under `edit` holds for every tool that changes a file (write, multiedit, patch), as Claude Code's Edit
// rules do: refused an edit, the model cannot write the same file whole.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const run = (root: string, turns: Array<FakeTurn>, args: Array<string>, home?: string) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return runAnvil(["run", "-f", "stream-json", ...args, "go"], { cwd: root, env: { ...(home ? { HOME: home } : {}), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } })
}

describe("edit's rules and the other file-changing tools", () => {
  test("edit's deny patterns refuse write, multiedit and patch of those files, naming the edit rule; other files are written", async () => {
    const root = project({ "deps.lock": "v1\n", "a.txt": "alpha\n" })
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { edit: { "*.lock": "deny" } } }))
    const r = await run(
      root,
      [
        {
          tool_calls: [
            { name: "read", arguments: { path: "deps.lock" }, id: "r" },
            { name: "read", arguments: { path: "a.txt" }, id: "r2" },
          ],
        },
        {
          tool_calls: [
            { name: "write", arguments: { path: "deps.lock", content: "evil\n" }, id: "w" },
            { name: "multiedit", arguments: { path: "deps.lock", edits: [{ old_string: "v1", new_string: "evil" }] }, id: "m" },
            { name: "patch", arguments: { patch: "*** Begin Patch\n*** Update File: deps.lock\n@@\n-v1\n+evil\n*** End Patch\n" }, id: "p" },
            { name: "write", arguments: { path: "a.txt", content: "beta\n" }, id: "ok" },
          ],
        },
        { text: "done" },
      ],
      ["--yes"],
    )
    const results = toolResults(jsonLines(r.stdout))
    for (const id of ["w", "m", "p"]) {
      const denied = results.find((t) => t.id === id)!
      expect(denied.envelope.error.code).toBe("PERMISSION_DENIED")
      expect(denied.envelope.error.message).toContain(`"edit": {"*.lock": "deny"}`)
    }
    expect(results.find((t) => t.id === "ok")!.is_error).toBe(false)
    expect(readFileSync(join(root, "deps.lock"), "utf8")).toBe("v1\n")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("beta\n")
    expect(r.code).toBe(4)
  })

  test("edit denied as a whole takes every file-changing tool out of the offer; edit's allow rules loosen only edit", async () => {
    const root = project({})
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { edit: "deny" } }))
    const denied = await run(root, [{ text: "ok" }], [])
    const tools: Array<string> = jsonLines(denied.stdout)[0].tools
    expect(tools).toContain("read")
    expect(tools.filter((t) => ["edit", "write", "multiedit", "patch"].includes(t))).toEqual([])

    // The user's own edit allow rule spares edit's questions, not write's: without a terminal the write is refused.
    const home = project({})
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { edit: { "*": "allow" } } }))
    const open = project({})
    const r = await run(open, [{ tool_calls: [{ name: "write", arguments: { path: "new.txt", content: "x\n" }, id: "w" }] }, { text: "done" }], [], home)
    expect(toolResults(jsonLines(r.stdout)).find((t) => t.id === "w")!.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(r.code).toBe(4)
  })
})
