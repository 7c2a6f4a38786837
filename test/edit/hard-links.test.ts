import { describe, expect, test } from "bun:test"
import { linkSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { project } from "../support/harness.ts"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/temp-dirs.ts"

/**
 * A file with several names (hard links) is replaced under the name given, as every atomic write does: the other
 * names keep the old content (written in place instead, a hard link to a file outside the project would let a tool
 * change that file). The answer says so, since the user may expect every name to change.
 */
describe("a file with other names (hard links)", () => {
  test("edit, multiedit and write say that the other names keep the old content, through the binary", async () => {
    const root = project({ "f.txt": "one\n", "plain.txt": "one\n" })
    linkSync(join(root, "f.txt"), join(root, "g.txt"))
    linkSync(join(root, "f.txt"), join(root, "h.txt"))
    const home = tempDir("anvil-home-")
    const call = async (name: string, params: unknown) => {
      const r = await runBinary(["tool", name, JSON.stringify(params)], { cwd: root, env: { HOME: home } })
      return { exit: r.code, envelope: JSON.parse(r.stdout) }
    }
    const edit = await call("edit", { path: "f.txt", old_string: "one", new_string: "two" })
    expect(edit.exit).toBe(0)
    expect(edit.envelope.text).toContain(
      "Replaced at line 1: +1 -1 (the file had 2 other names (hard links), which keep the old content: this name is now a file of its own)",
    )
    expect(edit.envelope.data.hard_links_kept_old).toBe(2)
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("two\n")
    expect(readFileSync(join(root, "g.txt"), "utf8")).toBe("one\n")
    expect(statSync(join(root, "f.txt")).nlink).toBe(1)
    // Now a file of its own: nothing more to say.
    const again = await call("edit", { path: "f.txt", old_string: "two", new_string: "three" })
    expect(again.envelope.text).not.toContain("hard link")
    expect(again.envelope.data.hard_links_kept_old).toBeUndefined()
    const multi = await call("multiedit", { path: "g.txt", edits: [{ old_string: "one", new_string: "1" }] })
    expect(multi.envelope.text).toContain("(the file had another name (a hard link), which keeps the old content: this name is now a file of its own)")
    // A dry run changes no name.
    const dry = await call("write", { path: "h.txt", content: "x\n", dry_run: true })
    expect(dry.envelope.data.hard_links_kept_old).toBeUndefined()
    const write = await call("write", { path: "h.txt", content: "x\n" })
    expect(write.envelope.data.hard_links_kept_old).toBeUndefined()
    expect(readFileSync(join(root, "h.txt"), "utf8")).toBe("x\n")
    const plain = await call("write", { path: "plain.txt", content: "y\n" })
    expect(plain.envelope.text).not.toContain("hard link")
  }, 120_000)

  test("patch says it per file, and not for a dry run, through the binary", async () => {
    const root = project({ "p.txt": "a\nb\n" })
    linkSync(join(root, "p.txt"), join(root, "q.txt"))
    const home = tempDir("anvil-home-")
    const patch = "--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n"
    const call = async (params: unknown) => JSON.parse((await runBinary(["tool", "patch", JSON.stringify(params)], { cwd: root, env: { HOME: home } })).stdout)
    const dry = await call({ patch, dry_run: true })
    expect(dry.data.files[0].hard_links_kept_old).toBeUndefined()
    expect(dry.text).not.toContain("hard link")
    const done = await call({ patch })
    expect(done.data.files[0]).toMatchObject({ path: "p.txt", operation: "modify", hard_links_kept_old: 1 })
    expect(done.text).toContain("M p.txt (+1 -1, 1 hunk)\n  the file had another name (a hard link), which keeps the old content: this name is now a file of its own")
    expect(readFileSync(join(root, "p.txt"), "utf8")).toBe("A\nb\n")
    expect(readFileSync(join(root, "q.txt"), "utf8")).toBe("a\nb\n")
  }, 120_000)
})
