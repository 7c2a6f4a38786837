import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { runBinary } from "../support/binary.ts"

/**
 * patch reads a file as read and edit do: UTF-16 with a byte-order mark
 * (little or big endian) and Latin-1 are text, and the file is written back
 * in its own encoding, BOM and line endings, byte for byte.
 */

const le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])
const be = (text: string) => Buffer.from(le(text).map((_, i, all) => all[i % 2 === 0 ? i + 1 : i - 1]!))

const before = "first\r\nsecond line\r\nthird\r\n"
const after = "first\r\nsecond line, changed: é ✓\r\nthird\r\n"
const diff = (name: string) =>
  [`--- a/${name}`, `+++ b/${name}`, "@@ -1,3 +1,3 @@", " first", "-second line", "+second line, changed: é ✓", " third", ""].join("\n")

describe("patch on UTF-16 and Latin-1 files", () => {
  test("UTF-16 LE and BE with a BOM: applied byte-exact, encoding, BOM and CRLF kept; read and edit agree", async () => {
    const root = project({ "le.txt": le(before), "be.txt": be(before) }, { marker: false })
    for (const [name, enc] of [["le.txt", le], ["be.txt", be]] as const) {
      const read = (await callTool(root, "read", { path: name })).envelope
      expect(read.data.encoding).toBe(name === "le.txt" ? "utf-16le" : "utf-16be")
      const { envelope } = await callTool(root, "patch", { patch: diff(name) })
      expect(envelope.error).toBeUndefined()
      expect(readFileSync(join(root, name)).equals(enc(after))).toBe(true)
      // edit goes on from there, in the same encoding.
      const edit = (await callTool(root, "edit", { path: name, old_string: "third", new_string: "3rd" })).envelope
      expect(edit.error).toBeUndefined()
      expect(readFileSync(join(root, name)).equals(enc(after.replace("third", "3rd")))).toBe(true)
    }
  })

  test("Latin-1: kept Latin-1; a character it cannot hold is refused and nothing changes", async () => {
    const original = Buffer.from("caf\xe9\nsecond line\nthird\n", "latin1")
    const root = project({ "l1.txt": original }, { marker: false })
    const ok = [`--- a/l1.txt`, `+++ b/l1.txt`, "@@ -1,3 +1,3 @@", " café", "-second line", "+second ligne à", " third", ""].join("\n")
    expect((await callTool(root, "patch", { patch: ok })).envelope.error).toBeUndefined()
    const changed = Buffer.from("caf\xe9\nsecond ligne \xe0\nthird\n", "latin1")
    expect(readFileSync(join(root, "l1.txt")).equals(changed)).toBe(true)
    const bad = [`--- a/l1.txt`, `+++ b/l1.txt`, "@@ -1,3 +1,3 @@", " café", "-second ligne à", "+✓", " third", ""].join("\n")
    const refused = (await callTool(root, "patch", { patch: bad })).envelope
    expect(refused.error?.code).toBe("CONFLICT")
    expect(refused.error?.message).toContain("latin1")
    expect(readFileSync(join(root, "l1.txt")).equals(changed)).toBe(true)
  })

  test("a binary file is still refused, with the code read gives it", async () => {
    const root = project({ "b.bin": Buffer.from("first\n\0second\n") }, { marker: false })
    const p = [`--- a/b.bin`, `+++ b/b.bin`, "@@ -1 +1 @@", "-first", "+1st", ""].join("\n")
    const { envelope } = await callTool(root, "patch", { patch: p })
    expect(envelope.error?.code).toBe("BINARY_FILE")
    expect((await callTool(root, "read", { path: "b.bin" })).envelope.error?.code).toBe("BINARY_FILE")
  })

  test("through the binary: a UTF-16 LE file patched byte-exact", async () => {
    const root = project({ "w.txt": le(before) }, { marker: false })
    const r = await runBinary(["tool", "patch", JSON.stringify({ patch: diff("w.txt") })], { cwd: root })
    expect(JSON.parse(r.stdout).status).toBe("success")
    expect(readFileSync(join(root, "w.txt")).equals(le(after))).toBe(true)
  })
})
