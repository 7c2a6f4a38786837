import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FileLedger } from "../../src/workspace/file-ledger.ts"
import { callTool, project, session, tempDir } from "../support/harness.ts"

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex")
const read = (root: string, rel: string) => readFileSync(join(root, rel))
const text = (root: string, rel: string) => readFileSync(join(root, rel), "utf8")

describe("write: success", () => {
  test("overwrite: the text layout, sha256 before/after, a unified diff with counts, file_ops and a Read hint", async () => {
    const before = '{\n  "debug": false,\n  "port": 80\n}\n'
    const after = '{\n  "debug": true,\n  "port": 80\n}\n'
    const root = project({ "config/settings.json": before })
    const { envelope, meta } = await callTool(root, "write", { path: "config/settings.json", content: after })
    expect(envelope.status).toBe("success")
    const bytes = Buffer.byteLength(after)
    // The model reads the changed lines and one short hash; the data keeps the whole diff and both hashes.
    expect(envelope.text).toBe(
      `# Write: config/settings.json\n\nOverwrote config/settings.json: +1 -1, ${bytes} bytes; sha256 ${sha(after).slice(0, 12)}.\n@@ -2 +2 @@\n-  "debug": false,\n+  "debug": true,`,
    )
    expect(envelope.data).toMatchObject({
      applied: true,
      created: false,
      operation: "overwrite",
      bytes_written: bytes,
      file_bytes: bytes,
      sha256_before: sha(before),
      sha256_after: sha(after),
      path: "config/settings.json",
      additions: 1,
      deletions: 1,
      diff_truncated: false,
    })
    expect(envelope.data.diff).toBe(
      '--- a/config/settings.json\n+++ b/config/settings.json\n@@ -1,4 +1,4 @@\n {\n-  "debug": false,\n+  "debug": true,\n   "port": 80\n }\n',
    )
    expect(text(root, "config/settings.json")).toBe(after)
    expect(meta.file_ops).toEqual({
      file_path: "config/settings.json",
      operation: "overwrite",
      bytes_written: bytes,
      sha256_before: sha(before),
      sha256_after: sha(after),
    })
    expect(meta.retrieval_hints).toEqual([{ action: "Read", priority: "high", args: { path: "config/settings.json", offset: 0, limit: 200 } }])
    expect(envelope.context.path_resolved).toBe("config/settings.json")
  })

  test("create: parents made, created=True, no sha before, a /dev/null diff of all additions", async () => {
    const root = project()
    const { envelope, meta } = await callTool(root, "write", { path: "a/b/c/new.py", content: "x = 1\ny = 2\n" })
    expect(envelope.status).toBe("success")
    // The content the model just sent is not echoed back.
    expect(envelope.text).toStartWith(`# Write: a/b/c/new.py\n\nCreated a/b/c/new.py: 12 bytes, 2 lines; sha256 ${sha("x = 1\ny = 2\n").slice(0, 12)}.`)
    expect(envelope.text).not.toContain("+x = 1")
    expect(envelope.data).toMatchObject({ created: true, operation: "create", sha256_before: null, additions: 2, deletions: 0 })
    expect(envelope.data.diff).toBe("--- /dev/null\n+++ b/a/b/c/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n")
    expect(text(root, "a/b/c/new.py")).toBe("x = 1\ny = 2\n")
    const one = await callTool(root, "write", { path: "one.txt", content: "x\n" })
    expect(one.envelope.text).toContain("Created one.txt: 2 bytes, 1 line; sha256")
    const byte = await callTool(root, "write", { path: "byte.txt", content: "x" })
    expect(byte.envelope.text).toContain("Created byte.txt: 1 byte, 1 line; sha256")
    expect(meta.file_ops).toMatchObject({ operation: "create", sha256_before: null })
  })

  test("the alternative parameter name file_path and the write_file alias", async () => {
    const root = project()
    const { envelope } = await callTool(root, "write_file", { file_path: "n.txt", content: "hi" })
    expect(envelope.status).toBe("success")
    expect(text(root, "n.txt")).toBe("hi")
  })

  test("an empty content writes an empty file", async () => {
    const root = project({ "e.txt": "gone\n" })
    const { envelope } = await callTool(root, "write", { path: "e.txt", content: "" })
    expect(envelope.data).toMatchObject({ file_bytes: 0, additions: 0, deletions: 1 })
    expect(text(root, "e.txt")).toBe("")
  })
})

describe("write: atomic and faithful", () => {
  test("the file's mode is kept and no temp file is left behind", async () => {
    const root = project({ "run.sh": "#!/bin/sh\necho a\n" })
    chmodSync(join(root, "run.sh"), 0o754)
    const { envelope } = await callTool(root, "write", { path: "run.sh", content: "#!/bin/sh\necho b\n" })
    expect(envelope.status).toBe("success")
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o754)
    // .anvil is anvil's own state (its journal folder, empty again after the write).
    expect(readdirSync(root).sort()).toEqual([".anvil", "anvil.json", "run.sh"])
    expect(readdirSync(join(root, ".anvil", "journal")).filter((n) => n !== ".gitignore")).toEqual([])
  })

  test("an existing CRLF file keeps CRLF when the content comes with LF; its BOM is kept", async () => {
    const root = project({ "w.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("one\r\ntwo\r\n")]) })
    const { envelope } = await callTool(root, "write", { path: "w.txt", content: "one\nTWO\nthree\n" })
    expect(read(root, "w.txt")).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("one\r\nTWO\r\nthree\r\n")]))
    expect(envelope.data).toMatchObject({ bom: true, line_endings: "crlf", additions: 2, deletions: 1 })
    expect(envelope.text).toContain("; kept utf-8, BOM, CRLF line endings.")
    // The diff is shown with plain LF lines.
    expect(envelope.data.diff).not.toContain("\r")
    // Content that brings its own BOM (as read from a file) onto a file that keeps one: one BOM, not two.
    await callTool(root, "write", { path: "w.txt", content: "\uFEFFnew\n" })
    expect(read(root, "w.txt")).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("new\r\n")]))
    const utf16 = project({ "u.txt": Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00]) })
    await callTool(utf16, "write", { path: "u.txt", content: "\uFEFFb\n" })
    expect(read(utf16, "u.txt")).toEqual(Buffer.from([0xff, 0xfe, 0x62, 0x00, 0x0a, 0x00]))
  })

  test("content given with CRLF is written as given; a new file is written byte for byte", async () => {
    const root = project()
    await callTool(root, "write", { path: "c.txt", content: "a\r\nb\r\n" })
    expect(read(root, "c.txt")).toEqual(Buffer.from("a\r\nb\r\n"))
  })

  test("a Latin-1 file stays Latin-1 when the content fits; otherwise it becomes UTF-8 and says so", async () => {
    const root = project({ "l.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) })
    await callTool(root, "write", { path: "l.txt", content: "café crème\n" })
    expect(read(root, "l.txt")).toEqual(Buffer.from("café crème\n", "latin1"))
    const { envelope } = await callTool(root, "write", { path: "l.txt", content: "naïve ☕\n" })
    expect(read(root, "l.txt")).toEqual(Buffer.from("naïve ☕\n", "utf8"))
    expect(envelope.text).toContain("written as UTF-8")
  })

  test("a symlink inside the project is written through; the link stays a link", async () => {
    const root = project({ "real.txt": "old\n", "link.txt": { link: "real.txt" } })
    const { envelope } = await callTool(root, "write", { path: "link.txt", content: "new\n" })
    expect(envelope.status).toBe("success")
    expect(lstatSync(join(root, "link.txt")).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(root, "link.txt"))).toBe("real.txt")
    expect(text(root, "real.txt")).toBe("new\n")
  })

  test("dry_run: partial, applied false, the diff shown, nothing written", async () => {
    const root = project({ "d.txt": "a\n" })
    const { envelope } = await callTool(root, "write", { path: "d.txt", content: "b\n", dry_run: true })
    expect(envelope.status).toBe("partial")
    expect(envelope.data).toMatchObject({ applied: false, bytes_written: 0, additions: 1, deletions: 1 })
    expect(envelope.text).toContain("Dry run: nothing was written.")
    expect(envelope.text).toContain("-a\n+b")
    expect(text(root, "d.txt")).toBe("a\n")
  })

  test("a long diff is cut to tools.write.max_diff_lines; the counts stay exact", async () => {
    const root = project()
    const content = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") + "\n"
    const { envelope } = await callTool(root, "write", { path: "big.txt", content }, { configOverrides: { tools: { write: { max_diff_lines: 20 } } } })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ additions: 100, deletions: 0, diff_truncated: true })
    expect((envelope.data.diff as string).split("\n").filter((l) => l !== "").length).toBe(20)
    expect(envelope.text).toContain(`Created big.txt: ${content.length} bytes, 100 lines;`)
    expect(text(root, "big.txt")).toBe(content)
    await callTool(root, "read", { path: "big.txt" })
    const over = await callTool(root, "write", { path: "big.txt", content: content.replaceAll("line", "LINE") }, { configOverrides: { tools: { write: { max_diff_lines: 20 } } } })
    expect(over.envelope.data).toMatchObject({ additions: 100, deletions: 100, diff_truncated: true })
    // The old lines exist nowhere else: the whole diff is saved and named, and the write is still a success.
    expect(over.envelope.status).toBe("success")
    expect(over.envelope.text).toContain("+100 -100 (the lines below are cut short; the whole diff is saved, named below)")
    const saved = over.envelope.data.full_output_path as string
    expect(over.envelope.text).toContain(`All the diff of big.txt (203 lines): ${saved}`)
    const diff = readFileSync(join(root, saved), "utf8")
    expect(diff).toContain("-line 99\n")
    expect(diff).toContain("+LINE 99")
    // Created files are not saved again: the file holds what its cut diff leaves out.
    expect(envelope.data.full_output_path).toBeUndefined()
    // An emptied file's removed lines are saved whole.
    await callTool(root, "read", { path: "big.txt" })
    const emptied = await callTool(root, "write", { path: "big.txt", content: "" }, { configOverrides: { tools: { write: { max_diff_lines: 20 } } } })
    const removed = readFileSync(join(root, emptied.envelope.data.full_output_path as string), "utf8").split("\n")
    expect(removed.filter((l) => l.startsWith("-LINE")).length).toBe(100)
  })
})

describe("write: refusals", () => {
  test("a directory is IS_DIRECTORY", async () => {
    const root = project({ src: { dir: true } })
    const { envelope } = await callTool(root, "write", { path: "src", content: "x" })
    expect(envelope.error?.code).toBe("IS_DIRECTORY")
  })

  test("a binary file is BINARY_FILE and is left alone", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    const root = project({ "img.png": png })
    const { envelope } = await callTool(root, "write", { path: "img.png", content: "text" })
    expect(envelope.error?.code).toBe("BINARY_FILE")
    expect(read(root, "img.png")).toEqual(png)
  })

  test("sandbox: .., an absolute path outside and a symlinked folder leading outside are ACCESS_DENIED; nothing is written outside", async () => {
    const outside = tempDir("anvil-outside-")
    const root = project({ "out": { link: outside } })
    for (const path of ["../escape.txt", join(outside, "abs.txt"), "out/via-link.txt"]) {
      const { envelope } = await callTool(root, "write", { path, content: "x" })
      expect(envelope.error?.code).toBe("ACCESS_DENIED")
    }
    expect(readdirSync(outside)).toEqual([])
  })

  test("the permission is 'ask': a refused approval is PERMISSION_DENIED and nothing is written", async () => {
    const root = project()
    const { envelope } = await callTool(root, "write", { path: "p.txt", content: "x" }, { onAsk: () => Effect.succeed(false) })
    expect(envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(existsSync(join(root, "p.txt"))).toBe(false)
  })

  test("missing path or content is INVALID_PARAM with field errors", async () => {
    const root = project()
    const { envelope } = await callTool(root, "write", { path: "x.txt" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.map((f) => f.field)).toContain("content")
  })
})

describe("write, edit, multiedit: a read-only file", () => {
  test("is PERMISSION_DENIED with the mode and a chmod next step, even for root (temp + rename could replace it); nothing changes", async () => {
    const root = project({ "gen.ts": "export const a = 1\n" })
    chmodSync(join(root, "gen.ts"), 0o444)
    for (const [tool, params] of [
      ["write", { path: "gen.ts", content: "export const a = 2\n" }],
      ["edit", { path: "gen.ts", old_string: "1", new_string: "2" }],
      ["multiedit", { path: "gen.ts", edits: [{ old_string: "1", new_string: "2" }] }],
    ] as const) {
      const { envelope } = await callTool(root, tool, params)
      expect(envelope.error?.code).toBe("PERMISSION_DENIED")
      expect(envelope.error?.message).toBe("gen.ts is read-only (mode 0444); nothing was written. If it should change, make it writable first (chmod u+w), then retry.")
      expect(envelope.text).toContain(`* Bash(command="chmod u+w 'gen.ts'")`)
    }
    expect(text(root, "gen.ts")).toBe("export const a = 1\n")
    expect(statSync(join(root, "gen.ts")).mode & 0o777).toBe(0o444)
    chmodSync(join(root, "gen.ts"), 0o644)
    expect((await callTool(root, "edit", { path: "gen.ts", old_string: "1", new_string: "2" })).envelope.status).toBe("success")
  })
})

describe("write: stale-write protection", () => {
  test("in a session, overwriting a file never read is CONFLICT with the reason; creating a new file needs no read", async () => {
    const root = project({ "a.txt": "original\n" })
    const s = session(root, { enforceReads: true })
    const refused = (await s.call("write", { path: "a.txt", content: "new\n" })).envelope
    expect(refused.error?.code).toBe("CONFLICT")
    expect(refused.error?.message).toContain("has not been read in this session")
    expect(refused.text).toContain('Read(path="a.txt")')
    expect(text(root, "a.txt")).toBe("original\n")
    expect((await s.call("write", { path: "fresh.txt", content: "x\n" })).envelope.status).toBe("success")
  })

  test("after a Read the write succeeds, and consecutive writes need no new read (the write records its own stamp)", async () => {
    const root = project({ "a.txt": "v1\n" })
    const s = session(root, { enforceReads: true })
    expect((await s.call("read", { path: "a.txt" })).envelope.status).toBe("success")
    expect((await s.call("write", { path: "a.txt", content: "v2\n" })).envelope.status).toBe("success")
    expect((await s.call("write", { path: "a.txt", content: "v3\n" })).envelope.status).toBe("success")
    expect(text(root, "a.txt")).toBe("v3\n")
    const stamp = await s.run(Effect.gen(function* () {
      return yield* (yield* FileLedger).lastSeen(join(root, "a.txt"))
    }))
    expect(stamp?.sha256).toBe(sha("v3\n"))
  })

  test("a file changed on disk since it was read is CONFLICT; reading it again clears it", async () => {
    const root = project({ "a.txt": "v1\n" })
    const s = session(root, { enforceReads: true })
    await s.call("read", { path: "a.txt" })
    writeFileSync(join(root, "a.txt"), "changed by someone else\n")
    const refused = (await s.call("write", { path: "a.txt", content: "mine\n" })).envelope
    expect(refused.error?.code).toBe("CONFLICT")
    expect(refused.error?.message).toContain("changed on disk since it was last read")
    expect(text(root, "a.txt")).toBe("changed by someone else\n")
    await s.call("read", { path: "a.txt" })
    expect((await s.call("write", { path: "a.txt", content: "mine\n" })).envelope.status).toBe("success")
  })

  test("expected_sha256: a mismatch is CONFLICT, a match writes, and a missing file with one is CONFLICT", async () => {
    const root = project({ "a.txt": "v1\n" })
    const wrong = (await callTool(root, "write", { path: "a.txt", content: "v2\n", expected_sha256: sha("other") })).envelope
    expect(wrong.error?.code).toBe("CONFLICT")
    expect(wrong.error?.message).toContain(sha("v1\n"))
    expect(text(root, "a.txt")).toBe("v1\n")
    const right = (await callTool(root, "write", { path: "a.txt", content: "v2\n", expected_sha256: sha("v1\n").toUpperCase() })).envelope
    expect(right.status).toBe("success")
    const missing = (await callTool(root, "write", { path: "none.txt", content: "x", expected_sha256: sha("x") })).envelope
    expect(missing.error?.code).toBe("CONFLICT")
    expect(existsSync(join(root, "none.txt"))).toBe(false)
  })

  test("expected_sha256 that is not 64 hex digits is INVALID_PARAM", async () => {
    const root = project({ "a.txt": "v1\n" })
    const { envelope } = await callTool(root, "write", { path: "a.txt", content: "v2\n", expected_sha256: "abc" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("expected_sha256")
  })

  test("outside a session (direct runs) no read is needed", async () => {
    const root = project({ "a.txt": "v1\n" })
    expect((await callTool(root, "write", { path: "a.txt", content: "v2\n" })).envelope.status).toBe("success")
  })
})
