import { describe, expect, test } from "bun:test"
import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { saveAllowRules } from "../../src/permission/permissions.ts"
import { saveNetworkHost } from "../../src/sandbox/save-host.ts"
import { callTool, project } from "../support/harness.ts"

/**
 * A file is replaced by a new one renamed over it (never half written); the new one gets the old one's owner and
 * group where the process may set them (anvil run as root in a container, or with sudo, in a user's checkout), so
 * the user keeps their file: before, it became root's, and with mode 0640 its owner could no longer even read it.
 */

const root = process.getuid?.() === 0
// As root: another user's file. Otherwise the process's own user and group (the only ones it may give).
const owner = root ? { uid: 1234, gid: 5678 } : { uid: process.getuid!(), gid: process.getgid!() }

const calls: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["edit", { path: "edit.txt", old_string: "old", new_string: "new" }],
  ["write", { path: "write.txt", content: "new\n" }],
  ["multiedit", { path: "multiedit.txt", edits: [{ old_string: "old", new_string: "new" }] }],
  ["patch", { patch: "--- a/patch.txt\n+++ b/patch.txt\n@@ -1 +1 @@\n-old\n+new\n" }],
]

describe("a replaced file keeps its owner, group and mode", () => {
  test("edit, write, multiedit and patch: the new file has the old one's owner and group, set-user-ID bit included", async () => {
    const dir = project({}, { marker: false })
    for (const [tool] of calls) {
      const file = join(dir, `${tool}.txt`)
      writeFileSync(file, "old\n")
      chownSync(file, owner.uid, owner.gid)
      // After the chown (which clears set-user-ID bits), as a user would have it.
      chmodSync(file, 0o4750)
    }
    for (const [tool, params] of calls) {
      const { envelope } = await callTool(dir, tool, params)
      expect({ tool, status: envelope.status }).toEqual({ tool, status: "success" })
      const file = join(dir, `${tool}.txt`)
      const st = statSync(file)
      expect({ tool, uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, text: readFileSync(file, "utf8") }).toEqual({
        tool,
        ...owner,
        mode: 0o4750,
        text: "new\n",
      })
    }
  })
})

describe("anvil.json rewritten by an 'always' answer keeps its owner, group and mode", () => {
  test("a saved permission rule and a saved network host", async () => {
    const dir = project({}, { marker: false })
    const file = join(dir, "anvil.json")
    writeFileSync(file, '{"model": "openai/m"}\n')
    chownSync(file, owner.uid, owner.gid)
    chmodSync(file, 0o640)
    const kept = () => {
      const st = statSync(file)
      return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }
    }
    await Effect.runPromise(saveAllowRules(dir, [{ tool: "bash" }]).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))))
    expect(kept()).toEqual({ ...owner, mode: 0o640 })
    await saveNetworkHost(dir, "example.org")
    expect(kept()).toEqual({ ...owner, mode: 0o640 })
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ model: "openai/m", permission: { bash: "allow" }, sandbox: { network: ["example.org"] } })
    // No temp file is left beside it.
    expect(readdirSync(dir).filter((n) => n.includes("tmp"))).toEqual([])
  })
})

