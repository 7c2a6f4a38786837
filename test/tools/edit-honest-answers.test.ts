import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"

/**
 * What write, edit and multiedit answer is what is on disk: "no change" only when the bytes are as they were, a
 * change the text diff cannot show (line endings, whitespace) said and shown; a lone surrogate, which has no UTF-8
 * form, is refused rather than written as U+FFFD.
 */

const bytes = (root: string, rel: string) => [...readFileSync(join(root, rel))]
const ascii = (s: string) => [...Buffer.from(s, "latin1")]

describe("edit: the answer describes the change made", () => {
  test("replace_all of CRLF with LF changes nothing on disk (each line keeps its ending): said so, with the command that does change them", async () => {
    const root = project({})
    writeFileSync(join(root, "c.txt"), "a\r\nb\r\n")
    const { envelope, meta } = await callTool(root, "edit", { path: "c.txt", old_string: "\r\n", new_string: "\n", replace_all: true })
    expect(bytes(root, "c.txt")).toEqual(ascii("a\r\nb\r\n"))
    expect(envelope.text).toContain("Matched 2 places at lines 1, 2: no change: the file's bytes are as they were")
    expect(envelope.text).not.toContain("Replaced")
    expect(envelope.text).toContain(`Bash(command="sed -i 's/\\\\r$//' 'c.txt'")`)
    expect(envelope.data).toMatchObject({ unchanged: true, additions: 0, deletions: 0 })
    expect(meta.retrieval_hints?.[0]).toEqual({ action: "Bash", priority: "high", args: { command: "sed -i 's/\\r$//' 'c.txt'" } })
    // The other way: LF to CRLF.
    writeFileSync(join(root, "l.txt"), "x\ny\n")
    const back = await callTool(root, "edit", { path: "l.txt", old_string: "x\ny", new_string: "x\r\ny" })
    expect(bytes(root, "l.txt")).toEqual(ascii("x\ny\n"))
    expect(back.envelope.text).toContain("line endings to CRLF")
  })

  test("a new_string that adds a CR changes the line's ending: the answer counts it and the diff shows it (␍), never 'no change'", async () => {
    const root = project({})
    writeFileSync(join(root, "f.txt"), "a\nb\n")
    const { envelope } = await callTool(root, "edit", { path: "f.txt", old_string: "a", new_string: "a\r" })
    expect(bytes(root, "f.txt")).toEqual(ascii("a\r\nb\n"))
    expect(envelope.text).toContain("Replaced at line 1: +1 -1 (line endings changed: ␍ marks a line that ends in CRLF)")
    expect(envelope.text).toContain("-a\n+a␍")
    expect(envelope.data).toMatchObject({ endings_changed: true, additions: 1, deletions: 1 })
    expect(envelope.text).not.toContain("no change")
    // multiedit and write say the same.
    writeFileSync(join(root, "g.txt"), "a\nb\n")
    const multi = await callTool(root, "multiedit", { path: "g.txt", edits: [{ old_string: "b", new_string: "b\r" }] })
    expect(bytes(root, "g.txt")).toEqual(ascii("a\nb\r\n"))
    expect(multi.envelope.text).toContain("+1 -1 (line endings changed")
    writeFileSync(join(root, "h.txt"), "a\r\nb\n")
    const written = await callTool(root, "write", { path: "h.txt", content: "a\nb\n" })
    expect(bytes(root, "h.txt")).toEqual(ascii("a\nb\n"))
    expect(written.envelope.text).toContain("Overwrote h.txt: +1 -1 (line endings changed")
    expect(written.envelope.text).toContain("-a␍\n+a")
  })

  test("a change of whitespace only is said to be one; a CRLF file's ordinary edit shows no ␍", async () => {
    const root = project({ "w.txt": "a  \nb\n" })
    const { envelope } = await callTool(root, "edit", { path: "w.txt", old_string: "a  ", new_string: "a" })
    expect(bytes(root, "w.txt")).toEqual(ascii("a\nb\n"))
    expect(envelope.text).toContain("+1 -1 (whitespace only)")
    expect(envelope.data).toMatchObject({ whitespace_only: true })
    writeFileSync(join(root, "crlf.txt"), "one\r\ntwo\r\n")
    const plain = await callTool(root, "edit", { path: "crlf.txt", old_string: "two", new_string: "three" })
    expect(bytes(root, "crlf.txt")).toEqual(ascii("one\r\nthree\r\n"))
    expect(plain.envelope.text).toContain("Replaced at line 2: +1 -1; sha256")
    expect(plain.envelope.text).not.toContain("␍")
    expect(plain.envelope.data).not.toHaveProperty("endings_changed")
    expect(plain.envelope.data).not.toHaveProperty("unchanged")
  })
})

describe("a lone surrogate is refused, never written as something else", () => {
  test("write, edit, multiedit and patch: INVALID_PARAM naming the field and the place; the file is not changed", async () => {
    const root = project({ "s.txt": "x\nc\n" })
    const before = readFileSync(join(root, "s.txt"))
    const cases: ReadonlyArray<[string, Record<string, unknown>, string]> = [
      ["write", { path: "s.txt", content: "x\na\ud800b\n" }, "content"],
      ["write", { path: "new.txt", content: "\udc00" }, "content"],
      ["edit", { path: "s.txt", old_string: "c", new_string: "\udbffz" }, "new_string"],
      ["multiedit", { path: "s.txt", edits: [{ old_string: "x", new_string: "y" }, { old_string: "c", new_string: "\ud801y" }] }, "edits.1.new_string"],
      ["patch", { patch: "--- a/s.txt\n+++ b/s.txt\n@@ -1,2 +1,2 @@\n x\n-c\n+\ud800\n" }, "patch"],
    ]
    for (const [tool, params, field] of cases) {
      const out = await callTool(root, tool, params)
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.field_errors?.[0]?.field).toBe(field)
      expect(out.envelope.error?.message).toContain(`${field}: holds a lone UTF-16 surrogate (\\u`)
      expect(out.envelope.error?.message).toContain("nothing was done; send the character whole")
    }
    expect(readFileSync(join(root, "s.txt"))).toEqual(before)
    expect(existsSync(join(root, "new.txt"))).toBe(false)
    // The place is named: line and column of the first one.
    const placed = await callTool(root, "write", { path: "s.txt", content: "ok\nab\ud800\udc00c\udfff\n" })
    expect(placed.envelope.error?.message).toContain("(\\udfff) at line 2, column 5")
    // A pair whole is a character: written as it is.
    expect((await callTool(root, "write", { path: "s.txt", content: "a\ud83d\ude00\n" })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "s.txt"), "utf8")).toBe("a\u{1F600}\n")
  })
})

describe("a file read may not show: its change is made, its lines are not printed", () => {
  test("write, edit and multiedit of a file a read deny or ask rule covers keep the counts and name the rule, never the lines", async () => {
    const root = project({ ".env": "SECRET=1\n", "keys/k.pem": "PEM-OLD\n", "open.txt": "x\n" })
    const permission = { read: { ".env": "deny", "keys/**": "ask" } }
    const call = (name: string, params: Record<string, unknown>) => callTool(root, name, params, { configOverrides: { permission } })
    // What the answer tells (params_input echoes the call's own parameters, which the caller wrote).
    const told = (e: { envelope: { data: unknown; text: string } }) => JSON.stringify([e.envelope.data, e.envelope.text])
    const edited = await call("edit", { path: ".env", old_string: "SECRET=1", new_string: "SECRET=2" })
    expect(readFileSync(join(root, ".env"), "utf8")).toBe("SECRET=2\n")
    expect(told(edited)).not.toContain("SECRET")
    expect(edited.envelope.text).toContain("Replaced at line 1: +1 -1;")
    expect(edited.envelope.text).toContain(`Its lines are not shown: the read deny rule "read": {".env": "deny"}`)
    expect(edited.envelope.data).toMatchObject({ diff: "", additions: 1, deletions: 1, diff_withheld: { level: "deny" } })
    const multi = await call("multiedit", { path: "keys/k.pem", edits: [{ old_string: "PEM-OLD", new_string: "PEM-NEW" }] })
    expect(told(multi)).not.toContain("PEM-")
    expect(multi.envelope.text).toContain("the read ask rule")
    const written = await call("write", { path: ".env", content: "SECRET=3\n" })
    expect(told(written)).not.toContain("SECRET")
    expect(readFileSync(join(root, ".env"), "utf8")).toBe("SECRET=3\n")
    // A failed edit does not quote the nearest lines (or the places an ambiguous old_string matches) either.
    const missed = await call("edit", { path: ".env", old_string: "SECRET=9x", new_string: "b" })
    expect(missed.envelope.error?.code).toBe("INVALID_PARAM")
    expect(missed.envelope.text).not.toContain("SECRET")
    expect(missed.envelope.text).toContain("The file's lines are not shown: the read deny rule")
    writeFileSync(join(root, "keys", "k.pem"), "PEM-A\nPEM-A\n")
    const twice = await call("multiedit", { path: "keys/k.pem", edits: [{ old_string: "PEM-A", new_string: "z" }] })
    expect(twice.envelope.error?.code).toBe("INVALID_PARAM")
    expect(twice.envelope.text.replace(/PEM-A", "new_string"/g, "")).not.toContain("PEM-A\n")
    expect(twice.envelope.text).toContain("the read ask rule")
    // A file no rule covers shows its lines as before.
    const open = await call("edit", { path: "open.txt", old_string: "x", new_string: "y" })
    expect(open.envelope.text).toContain("-x\n+y")
    expect(open.envelope.data).not.toHaveProperty("diff_withheld")
    writeFileSync(join(root, "open.txt"), "hello world\n")
    expect((await call("edit", { path: "open.txt", old_string: "hello wrld", new_string: "r" })).envelope.text).toContain("1\thello world")
  })
})
