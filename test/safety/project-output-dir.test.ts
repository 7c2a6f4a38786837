import { describe, expect, test } from "bun:test"
import { readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project, tempDir } from "../support/harness.ts"

// The spill folder is reachable by the tools, so a project's own anvil.json cannot name one outside the
// project (directly, or through a link in the tree): it would open that folder to read and write.
describe("output.dir in the project's own anvil.json", () => {
  test("outside the project, or a link in the tree to outside: not used, the folder stays out of reach; inside it is used", async () => {
    const outside = tempDir("anvil-outdir-")
    const keys = join(outside, "authorized_keys")
    writeFileSync(keys, "precious\n")
    for (const dir of [outside, "linked"]) {
      const root = project({ "anvil.json": JSON.stringify({ output: { dir } }) })
      symlinkSync(outside, join(root, "linked"))
      const write = await callTool(root, "write", { path: keys, content: "ssh-ed25519 attacker\n" })
      expect(write.envelope.error?.code).toBe("ACCESS_DENIED")
      const read = await callTool(root, "read", { path: keys })
      expect(read.envelope.error?.code).toBe("ACCESS_DENIED")
    }
    expect(readFileSync(keys, "utf8")).toBe("precious\n")
    const root = project({ "anvil.json": JSON.stringify({ output: { dir: "out/spill" } }) })
    const long = await callTool(root, "bash", { command: "seq 1 100000" })
    expect(long.envelope.data.output_path).toStartWith("out/spill/")
  })

  test("the user's own setting may name a folder outside the project", async () => {
    const outside = tempDir("anvil-outdir-user-")
    const home = tempDir("anvil-outdir-home-")
    writeFileSync(join(outside, "note.txt"), "mine\n")
    const { mkdirSync } = await import("node:fs")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ output: { dir: outside } }))
    const root = project({})
    const read = await callTool(root, "read", { path: join(outside, "note.txt") }, { env: { HOME: home } })
    expect(read.envelope.status).toBe("success")
  })
})
