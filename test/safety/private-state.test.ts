import { describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { privateStateDir } from "../../src/workspace/state-dir.ts"
import { callTool, project, tempDir } from "../support/harness.ts"

// anvil's private folder for a project (~/.cache/anvil/projects/<hash>/) holds the spill files when `.anvil`
// cannot be used, and also the sandbox's stand-in ledger, whose records name files anvil removes later.
describe("the private state folder", () => {
  test("the tools reach its spill files only: a stand-in record cannot be written through them", async () => {
    const home = tempDir("anvil-private-home-")
    const env = { HOME: home, XDG_CACHE_HOME: join(home, ".cache") }
    const victim = join(tempDir("anvil-private-victim-"), "empty-marker")
    writeFileSync(victim, "")
    const root = project({})
    // .anvil is a link: the spill files go to the private folder.
    symlinkSync(tempDir("anvil-private-elsewhere-"), join(root, ".anvil"))
    const ledger = join(privateStateDir(root, env), "sandbox-stand-ins")
    mkdirSync(ledger, { recursive: true })
    const record = JSON.stringify([{ path: victim, kind: "file" }])
    const write = await callTool(root, "write", { path: join(ledger, "1-1.json"), content: record }, { env })
    expect(write.envelope.error?.code).toBe("ACCESS_DENIED")
    expect(existsSync(join(ledger, "1-1.json"))).toBe(false)
    const long = await callTool(root, "bash", { command: "seq 1 100000" }, { env })
    const spill = String(long.envelope.data.output_path)
    expect(spill).toStartWith(join(privateStateDir(root, env), "tool-output"))
    expect((await callTool(root, "read", { path: spill, limit: 2 }, { env })).envelope.error).toBeUndefined()
    expect(existsSync(victim)).toBe(true)
  })
})
