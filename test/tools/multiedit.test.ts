import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project, session, tempDir } from "../support/harness.ts"

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex")
const text = (root: string, rel: string) => readFileSync(join(root, rel), "utf8")

const core = ["import os", "", "def load(path):", "    data = open(path).read()", "    return data", "", "def save(path, data):", "    open(path, 'w').write(data)", ""].join("\n")

describe("multiedit: success", () => {
  test("the text layout and data: total replacements, created, bytes, sha256s, one entry per edit, file_ops", async () => {
    const root = project({ "src/core.py": core })
    const { envelope, meta } = await callTool(root, "multiedit", {
      path: "src/core.py",
      edits: [
        { old_string: "import os", new_string: "import os\nimport io" },
        { old_string: "path", new_string: "filename", replace_all: true },
      ],
    })
    const after = core.replace("import os", "import os\nimport io").replaceAll("path", "filename")
    expect(envelope.status).toBe("success")
    expect(text(root, "src/core.py")).toBe(after)
    const bytes = Buffer.byteLength(after)
    expect(envelope.text).toStartWith(
      `# MultiEdit: src/core.py\n\nChanged src/core.py: 5 replacements by 2 edits (1: line 1; 2: lines 4, 5, 8, 9): +5 -4; sha256 ${sha(after).slice(0, 12)}.\n@@ `,
    )
    expect(envelope.data).toMatchObject({ file_bytes: bytes, sha256_before: sha(core), sha256_after: sha(after) })
    expect(envelope.data).toMatchObject({
      applied: true,
      path: "src/core.py",
      operation: "multi_edit",
      created: false,
      edit_count: 2,
      total_replacements: 5,
      file_bytes: bytes,
      sha256_before: sha(core),
      sha256_after: sha(after),
      edits: [
        { index: 0, replacements: 1, match_strategy: "exact", start_line: 1 },
        { index: 1, replacements: 4, match_strategy: "exact", start_line: 4 },
      ],
    })
    expect(envelope.data.diff).toStartWith("--- a/src/core.py\n+++ b/src/core.py\n@@ ")
    expect(envelope.data.additions).toBe(5)
    expect(envelope.data.deletions).toBe(4)
    expect(meta.tool_name).toBe("MultiEdit")
    expect(meta.file_ops).toMatchObject({ file_path: "src/core.py", operation: "multi_edit", bytes_written: bytes })
  })

  test("edits apply in order: a later edit matches text an earlier one produced", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { envelope } = await callTool(root, "multi_edit", {
      path: "a.txt",
      edits: [
        { old_string: "alpha", new_string: "beta" },
        { old_string: "beta", new_string: "gamma" },
      ],
    })
    expect(envelope.status).toBe("success")
    expect(text(root, "a.txt")).toBe("gamma\n")
  })
})

describe("multiedit: the names edit accepts work inside each edit too", () => {
  test("old_str / new_str / oldString / newString / replaceAll in edits[] are accepted as edit accepts them at the top", async () => {
    const root = project({ "f.txt": "a b c c\n" })
    const { envelope } = await callTool(root, "multiedit", {
      file_path: "f.txt",
      edits: [
        { old_str: "a", new_str: "A" },
        { oldString: "b", newString: "B" },
        { old_string: "c", new_string: "C", replaceAll: true },
      ],
    })
    expect(envelope.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("A B C C\n")
    const both = await callTool(root, "multiedit", { path: "f.txt", edits: [{ old_string: "A", old_str: "B", new_string: "x" }] })
    expect(both.envelope.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("x B C C\n")
  })
})

describe("multiedit: all or nothing", () => {
  test("a failing edit writes nothing; the error names its index, field and the closest region", async () => {
    const root = project({ "src/core.py": core })
    const { envelope } = await callTool(root, "multiedit", {
      path: "src/core.py",
      edits: [
        { old_string: "import os", new_string: "import sys" },
        { old_string: "(path", new_string: "(p" },
        { old_string: "def save(path, dat):", new_string: "def store(path, data):" },
      ],
    })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toStartWith("edits[1] (edit 2 of 3): old_string matches")
    expect(envelope.error?.field_errors).toEqual([{ field: "edits.1.old_string", message: "matches more than one place" }])
    expect(envelope.error?.message).toContain("Nothing was written.")
    expect(text(root, "src/core.py")).toBe(core)

    const notFound = (
      await callTool(root, "multiedit", {
        path: "src/core.py",
        edits: [
          { old_string: "import os", new_string: "import sys" },
          { old_string: "def save(path, dat):", new_string: "def store(path, data):" },
        ],
      })
    ).envelope
    expect(notFound.error?.field_errors?.[0]?.field).toBe("edits.1.old_string")
    expect(notFound.error?.message).toContain("src/core.py as the earlier edits left it")
    expect(notFound.text).toContain("The nearest are line 7")
    expect(notFound.text).toContain("     7\tdef save(path, data):")
    expect(text(root, "src/core.py")).toBe(core)
  })

  test("an edit with old_string equal to new_string is INVALID_PARAM naming it, before anything is read", async () => {
    const root = project({ "a.txt": "a\n" })
    const { envelope } = await callTool(root, "multiedit", {
      path: "a.txt",
      edits: [
        { old_string: "a", new_string: "b" },
        { old_string: "x", new_string: "x" },
      ],
    })
    expect(envelope.error?.field_errors).toEqual([{ field: "edits.1.new_string", message: "must differ from old_string" }])
    expect(text(root, "a.txt")).toBe("a\n")
  })

  test("an empty edit list is INVALID_PARAM", async () => {
    const root = project({ "a.txt": "a\n" })
    const { envelope } = await callTool(root, "multiedit", { path: "a.txt", edits: [] })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("edits")
  })
})

describe("multiedit: creation, fallbacks, encodings, protection", () => {
  test("a first edit with an empty old_string creates the file; later edits apply to it", async () => {
    const root = project()
    const { envelope } = await callTool(root, "multiedit", {
      path: "new/file.txt",
      edits: [
        { old_string: "", new_string: "one\ntwo\n" },
        { old_string: "two", new_string: "2" },
      ],
    })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ created: true, sha256_before: null, total_replacements: 2 })
    expect(envelope.text).toContain("Created ")
    expect(text(root, "new/file.txt")).toBe("one\n2\n")
  })

  test("an empty old_string after the first edit is refused", async () => {
    const root = project({ "a.txt": "a\n" })
    const { envelope } = await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "a", new_string: "b" }, { old_string: "", new_string: "c" }] })
    expect(envelope.error?.field_errors?.[0]?.field).toBe("edits.1.old_string")
  })

  test("a missing file is NOT_FOUND", async () => {
    const root = project()
    const { envelope } = await callTool(root, "multiedit", { path: "nope.txt", edits: [{ old_string: "a", new_string: "b" }] })
    expect(envelope.error?.code).toBe("NOT_FOUND")
  })

  test("an edit placed by a fallback makes the result partial and names it", async () => {
    const root = project({ "a.py": "def f():\n    return 1   \n" })
    const { envelope } = await callTool(root, "multiedit", {
      path: "a.py",
      edits: [
        { old_string: "def f():", new_string: "def g():" },
        { old_string: "    return 1\n", new_string: "    return 2\n" },
      ],
    })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.edits).toEqual([
      { index: 0, replacements: 1, match_strategy: "exact", start_line: 1, end_line: 1 },
      { index: 1, replacements: 1, match_strategy: "line_trimmed", start_line: 2, end_line: 2 },
    ])
    expect(envelope.text).toContain("Not exact: edits[1] found by line_trimmed; check the lines below.")
    expect(text(root, "a.py")).toBe("def g():\n    return 2\n")
  })

  test("CRLF files keep CRLF through several edits", async () => {
    const root = project({ "w.txt": "a\r\nb\r\nc\r\n" })
    await callTool(root, "multiedit", { path: "w.txt", edits: [{ old_string: "a\nb", new_string: "A\nB" }, { old_string: "c\n", new_string: "C\nD\n" }] })
    expect(readFileSync(join(root, "w.txt")).toString("binary")).toBe("A\r\nB\r\nC\r\nD\r\n")
  })

  test("stale-write protection: never read is CONFLICT; after a read it applies; expected_sha256 mismatch is CONFLICT", async () => {
    const root = project({ "a.txt": "one\n" })
    const s = session(root, { enforceReads: true })
    const edits = [{ old_string: "one", new_string: "two" }]
    expect((await s.call("multiedit", { path: "a.txt", edits })).envelope.error?.code).toBe("CONFLICT")
    await s.call("read", { path: "a.txt" })
    expect((await s.call("multiedit", { path: "a.txt", edits })).envelope.status).toBe("success")
    writeFileSync(join(root, "a.txt"), "three\n")
    const stale = (await s.call("multiedit", { path: "a.txt", edits: [{ old_string: "three", new_string: "four" }] })).envelope
    expect(stale.error?.code).toBe("CONFLICT")
    const wrong = (await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "three", new_string: "x" }], expected_sha256: sha("one\n") })).envelope
    expect(wrong.error?.code).toBe("CONFLICT")
    expect(text(root, "a.txt")).toBe("three\n")
  })

  test("sandbox escapes are ACCESS_DENIED and binary files BINARY_FILE", async () => {
    const outside = tempDir("anvil-outside-")
    const root = project({ "b.bin": Buffer.from([0, 1, 2]) })
    const edits = [{ old_string: "a", new_string: "b" }]
    expect((await callTool(root, "multiedit", { path: "../x.txt", edits })).envelope.error?.code).toBe("ACCESS_DENIED")
    expect((await callTool(root, "multiedit", { path: join(outside, "x.txt"), edits: [{ old_string: "", new_string: "x" }] })).envelope.error?.code).toBe("ACCESS_DENIED")
    expect(existsSync(join(outside, "x.txt"))).toBe(false)
    expect((await callTool(root, "multiedit", { path: "b.bin", edits })).envelope.error?.code).toBe("BINARY_FILE")
  })
})
