import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { commitText, openTarget } from "../../src/edit/target-file.ts"
import { workspaceToolError } from "../../src/tools/workspace-errors.ts"
import { FileLedger } from "../../src/workspace/file-ledger.ts"
import type { WorkspaceError } from "../../src/workspace/workspace-error.ts"
import { callTool, project, session, tempDir } from "../support/harness.ts"

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex")
const read = (root: string, rel: string) => readFileSync(join(root, rel))
const text = (root: string, rel: string) => readFileSync(join(root, rel), "utf8")

const service = [
  "class Service:",
  "    def start(self):",
  "        self.running = True",
  "        return self.running",
  "",
  "    def stop(self):",
  "        self.running = False",
  "",
].join("\n")

describe("edit: success", () => {
  test("the text layout: replacements, sha256 before/after, path; data with the diff and counts; file_ops", async () => {
    const root = project({ "src/service.py": service })
    const { envelope, meta } = await callTool(root, "edit", {
      path: "src/service.py",
      old_string: "        self.running = False",
      new_string: "        self.running = False\n        self.stopped = True",
    })
    const after = service.replace("        self.running = False", "        self.running = False\n        self.stopped = True")
    expect(envelope.status).toBe("success")
    expect(text(root, "src/service.py")).toBe(after)
    // The model reads the changed lines and one short hash; the data keeps the whole diff and both hashes.
    expect(envelope.text).toStartWith(
      `# Edit: src/service.py\n\nReplaced at line 7: +1 -0; sha256 ${sha(after).slice(0, 12)}.\n@@ -7,0 +8 @@\n+        self.stopped = True\n`,
    )
    expect(envelope.data).toMatchObject({
      applied: true,
      path: "src/service.py",
      operation: "replace",
      replacements: 1,
      replace_all: false,
      match_strategy: "exact",
      start_line: 7,
      sha256_before: sha(service),
      sha256_after: sha(after),
      additions: 1,
      deletions: 0,
      created: false,
    })
    expect(envelope.data.diff).toBe(
      "--- a/src/service.py\n+++ b/src/service.py\n@@ -5,3 +5,4 @@\n \n     def stop(self):\n         self.running = False\n+        self.stopped = True\n",
    )
    expect(meta.file_ops).toEqual({
      file_path: "src/service.py",
      operation: "replace",
      bytes_written: Buffer.byteLength(after),
      sha256_before: sha(service),
      sha256_after: sha(after),
    })
    expect(meta.retrieval_hints?.[0]?.action).toBe("Read")
  })

  test("old_string must be unique: three places is INVALID_PARAM naming their lines and showing them numbered; the file is untouched", async () => {
    const root = project({ "src/service.py": service })
    const { envelope } = await callTool(root, "edit", { path: "src/service.py", old_string: "self.running", new_string: "self.active" })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("old_string matches 3 places in src/service.py, at lines 3, 4, 7")
    expect(envelope.error?.message).toContain("replace_all")
    expect(envelope.error?.field_errors).toEqual([{ field: "old_string", message: "matches more than one place" }])
    expect(envelope.text).toContain("Match 1 (line 3):\n     2\t    def start(self):\n     3\t        self.running = True\n     4\t        return self.running")
    expect(text(root, "src/service.py")).toBe(service)
  })

  test("replace_all replaces every occurrence and counts them", async () => {
    const root = project({ "src/service.py": service })
    const { envelope } = await callTool(root, "edit", { path: "src/service.py", old_string: "self.running", new_string: "self.active", replace_all: true })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ replacements: 3, replace_all: true, lines: [3, 4, 7] })
    expect(text(root, "src/service.py")).toBe(service.replaceAll("self.running", "self.active"))
    expect(envelope.text).toContain("Replaced 3 places at lines 3, 4, 7: +3 -3;")
    // Several places in one line name that line once.
    const one = project({ "a.txt": "aXa\nb\n" })
    const same = await callTool(one, "edit", { path: "a.txt", old_string: "a", new_string: "c", replace_all: true })
    expect(same.envelope.data).toMatchObject({ replacements: 2, lines: [1, 1] })
    expect(same.envelope.text).toContain("Replaced 2 places at line 1: +1 -1;")
    const multi = await callTool(one, "multiedit", { path: "a.txt", edits: [{ old_string: "c", new_string: "d", replace_all: true }, { old_string: "b", new_string: "e" }] })
    expect(multi.envelope.text).toContain("2 edits (1: line 1; 2: line 2)")
  })

  test("aliases: str_replace with old_str/new_str and file_path", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { envelope } = await callTool(root, "str_replace", { file_path: "a.txt", old_str: "alpha", new_str: "beta" })
    expect(envelope.status).toBe("success")
    expect(text(root, "a.txt")).toBe("beta\n")
  })
})

describe("edit: encoding faithfulness", () => {
  test("a CRLF file matched with an LF old_string keeps CRLF, and only the replaced bytes change", async () => {
    const before = "first\r\nsecond\r\nthird\r\nfourth\r\n"
    const root = project({ "w.txt": before })
    const { envelope } = await callTool(root, "edit", { path: "w.txt", old_string: "second\nthird\n", new_string: "2nd\n3rd\nextra\n" })
    expect(envelope.status).toBe("success")
    expect(envelope.data.match_strategy).toBe("exact")
    expect(read(root, "w.txt").toString("binary")).toBe("first\r\n2nd\r\n3rd\r\nextra\r\nfourth\r\n")
    expect(envelope.data.line_endings).toBe("crlf")
    expect(envelope.data.diff).not.toContain("\r")
  })

  test("a UTF-8 BOM is kept", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const root = project({ "b.cs": Buffer.concat([bom, Buffer.from("var x = 1;\n")]) })
    const { envelope } = await callTool(root, "edit", { path: "b.cs", old_string: "1", new_string: "2" })
    expect(envelope.data.bom).toBe(true)
    expect(read(root, "b.cs")).toEqual(Buffer.concat([bom, Buffer.from("var x = 2;\n")]))
  })

  test("a mixed-ending file: new text takes the endings of the region it replaces; every other byte is unchanged", async () => {
    const before = "a\r\nb\nc\r\nd\n"
    const root = project({ "m.txt": before })
    await callTool(root, "edit", { path: "m.txt", old_string: "c\nd", new_string: "C1\nC2\nD" })
    expect(read(root, "m.txt").toString("binary")).toBe("a\r\nb\nC1\r\nC2\r\nD\n")
    await callTool(root, "edit", { path: "m.txt", old_string: "b", new_string: "B1\nB2" })
    expect(read(root, "m.txt").toString("binary")).toBe("a\r\nB1\nB2\nC1\r\nC2\r\nD\n")
  })

  test("a region that is itself mixed: each line break of the new text takes the one at its place in the region, so a line the edit keeps keeps its ending", async () => {
    const root = project({ "m.txt": "a\nb\r\nc\nd\r\n" })
    await callTool(root, "edit", { path: "m.txt", old_string: "a\nb\nc", new_string: "a\nB\nc" })
    expect(read(root, "m.txt").toString("binary")).toBe("a\nB\r\nc\nd\r\n")
    await callTool(root, "edit", { path: "m.txt", old_string: "a\nB\nc", new_string: "1\n2\n3\n4" })
    expect(read(root, "m.txt").toString("binary")).toBe("1\n2\r\n3\r\n4\nd\r\n")
  })

  test("a Latin-1 file: bytes outside the region survive; new text that Latin-1 cannot hold is refused", async () => {
    const before = Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a, 0x78, 0x3d, 0x31, 0x0a]) // "naïve\nx=1\n" in Latin-1
    const root = project({ "l.txt": before })
    const { envelope } = await callTool(root, "edit", { path: "l.txt", old_string: "x=1", new_string: "x=é" })
    expect(envelope.data.encoding).toBe("latin1")
    expect(read(root, "l.txt")).toEqual(Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a, 0x78, 0x3d, 0xe9, 0x0a]))
    const refused = (await callTool(root, "edit", { path: "l.txt", old_string: "x=", new_string: "☕=" })).envelope
    expect(refused.error?.code).toBe("INVALID_PARAM")
    expect(refused.error?.field_errors?.[0]?.field).toBe("new_string")
  })

  test("a UTF-16LE file with a BOM is edited and written back as UTF-16LE", async () => {
    const enc = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")])
    const root = project({ "u.txt": enc("hello\r\nworld\r\n") })
    const { envelope } = await callTool(root, "edit", { path: "u.txt", old_string: "world", new_string: "wörld" })
    expect(envelope.data).toMatchObject({ encoding: "utf-16le", bom: true })
    expect(read(root, "u.txt")).toEqual(enc("hello\r\nwörld\r\n"))
  })

  test("the file's mode is kept; no temp file is left", async () => {
    const root = project({ "x.sh": "echo a\n" })
    chmodSync(join(root, "x.sh"), 0o700)
    await callTool(root, "edit", { path: "x.sh", old_string: "a", new_string: "b" })
    expect(statSync(join(root, "x.sh")).mode & 0o777).toBe(0o700)
    expect(readdirSync(root).sort()).toEqual([".anvil", "anvil.json", "x.sh"])
    expect(readdirSync(join(root, ".anvil", "journal")).filter((n) => n !== ".gitignore")).toEqual([])
  })
})

describe("edit: fallbacks (status partial with match_strategy)", () => {
  test("line_trimmed: trailing whitespace differs", async () => {
    const root = project({ "t.py": "x = 1   \ny = 2\nz = 3\n" })
    const { envelope } = await callTool(root, "edit", { path: "t.py", old_string: "x = 1\ny = 2", new_string: "x = 10\ny = 20" })
    expect(envelope.status).toBe("partial")
    expect(envelope.data).toMatchObject({ match_strategy: "line_trimmed", start_line: 1, end_line: 2, applied: true })
    expect(text(root, "t.py")).toBe("x = 10\ny = 20\nz = 3\n")
    expect(envelope.text).toContain("Not an exact match: found by 'line_trimmed' (")
    expect(envelope.text).toContain("Recommended next step")
  })

  test("indentation: old_string indented less than the file; new_string is re-indented", async () => {
    const root = project({ "src/service.py": service })
    const { envelope } = await callTool(root, "edit", {
      path: "src/service.py",
      old_string: "def stop(self):\n    self.running = False",
      new_string: "def stop(self):\n    self.running = False\n    self.log('stopped')",
    })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.match_strategy).toBe("indentation")
    expect(text(root, "src/service.py")).toBe(service + "        self.log('stopped')\n")
  })

  test("indentation: spaces written where the file has tabs", async () => {
    const root = project({ "m.go": "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n" })
    const { envelope } = await callTool(root, "edit", {
      path: "m.go",
      old_string: "    if a {\n        b()\n    }",
      new_string: "    if a {\n        c()\n    }",
    })
    expect(envelope.data.match_strategy).toBe("indentation")
    expect(text(root, "m.go")).toBe("func f() {\n\tif a {\n\t\tc()\n\t}\n}\n")
  })

  test("whitespace: runs of whitespace inside lines differ", async () => {
    const root = project({ "c.js": "call(a,   b)\nother()\n" })
    const { envelope } = await callTool(root, "edit", { path: "c.js", old_string: "call(a, b)", new_string: "call(a, c)" })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.match_strategy).toBe("whitespace")
    expect(text(root, "c.js")).toBe("call(a, c)\nother()\n")
  })

  test("a fallback matching several places is an error listing them, never a guess", async () => {
    const root = project({ "d.py": "if a:\n    go()\nif b:\n    pass\nif a:\n    go()   \n" })
    // Trailing spaces in old_string: exact fails everywhere; line_trimmed matches lines 1 and 5.
    const { envelope } = await callTool(root, "edit", { path: "d.py", old_string: "if a:  \n    go()", new_string: "if a:\n    stop()" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("matches 2 places")
    expect(envelope.error?.message).toContain("line_trimmed")
    expect(envelope.error?.message).toContain("at lines 1, 5")
    expect(text(root, "d.py")).toBe("if a:\n    go()\nif b:\n    pass\nif a:\n    go()   \n")
  })
})

describe("edit: when nothing matches", () => {
  test("the error shows the closest region with line numbers and hints a Read there", async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `# line ${i + 1}`)
    const lines = [...filler, "def total(items):", "    return sum(i.price for i in items)", ...filler]
    const root = project({ "calc.py": lines.join("\n") + "\n" })
    const { envelope, meta } = await callTool(root, "edit", {
      path: "calc.py",
      old_string: "def total(items):\n    return sum(i.cost for i in items)",
      new_string: "def total(items):\n    return 0",
    })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("old_string was not found in calc.py")
    expect(envelope.error?.message).toContain("The nearest are lines 41-42")
    // The nearest candidates only, without the lines around them.
    expect(envelope.text).toMatch(/\n\nlines 41-42 \(\d+% similar\):\n    41\tdef total\(items\):\n    42\t    return sum\(i\.price for i in items\)\n\n/)
    expect(envelope.text).not.toContain("# line 40")
    expect(meta.retrieval_hints?.[0]).toEqual({ action: "Read", priority: "high", args: { path: "calc.py", offset: 35, limit: 40 } })
  })

  test("nothing similar at all: says so, with a Read hint", async () => {
    const root = project({ "a.txt": "alpha\nbeta\n" })
    const { envelope } = await callTool(root, "edit", { path: "a.txt", old_string: "zzzz qqqq", new_string: "x" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("no region of it looks similar")
    expect(envelope.text).toContain('Read(path="a.txt")')
  })
})

describe("edit: parameters and refusals", () => {
  test("a missing file is NOT_FOUND with a hint; an empty old_string creates it", async () => {
    const root = project()
    const missing = (await callTool(root, "edit", { path: "src/new.py", old_string: "x", new_string: "y" })).envelope
    expect(missing.error?.code).toBe("NOT_FOUND")
    // src/ does not exist either: the listing offered is of the nearest folder that does.
    expect(missing.text).toContain('LS(path=".")')
    expect(missing.error?.message).toContain("empty old_string")
    const created = (await callTool(root, "edit", { path: "src/new.py", old_string: "", new_string: "print('hi')\n" })).envelope
    expect(created.status).toBe("success")
    expect(created.data).toMatchObject({ created: true, operation: "create", sha256_before: null, additions: 1 })
    expect(created.text).toContain("Created src/new.py: +1 -0; sha256 ")
    expect(text(root, "src/new.py")).toBe("print('hi')\n")
  })

  test("an empty old_string fills an empty file but is refused on a file with content", async () => {
    const root = project({ "empty.txt": "", "full.txt": "content\n" })
    expect((await callTool(root, "edit", { path: "empty.txt", old_string: "", new_string: "now\n" })).envelope.status).toBe("success")
    expect(text(root, "empty.txt")).toBe("now\n")
    const refused = (await callTool(root, "edit", { path: "full.txt", old_string: "", new_string: "x" })).envelope
    expect(refused.error?.code).toBe("INVALID_PARAM")
    expect(refused.error?.field_errors?.[0]?.field).toBe("old_string")
  })

  test("old_string equal to new_string is INVALID_PARAM on new_string", async () => {
    const root = project({ "a.txt": "a\n" })
    const { envelope } = await callTool(root, "edit", { path: "a.txt", old_string: "a", new_string: "a" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors).toEqual([{ field: "new_string", message: "must differ from old_string" }])
  })

  test("binary files are BINARY_FILE, directories IS_DIRECTORY", async () => {
    const root = project({ "bin.dat": Buffer.from([1, 2, 0, 3, 4]), dir: { dir: true } })
    expect((await callTool(root, "edit", { path: "bin.dat", old_string: "a", new_string: "b" })).envelope.error?.code).toBe("BINARY_FILE")
    expect((await callTool(root, "edit", { path: "dir", old_string: "a", new_string: "b" })).envelope.error?.code).toBe("IS_DIRECTORY")
  })

  test("files over tools.edit.max_file_bytes are refused", async () => {
    const root = project({ "big.txt": "x".repeat(2000) })
    const { envelope } = await callTool(root, "edit", { path: "big.txt", old_string: "x", new_string: "y", replace_all: true }, {
      configOverrides: { tools: { edit: { max_file_bytes: 1000 } } },
    })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("tools.edit.max_file_bytes")
  })

  test("sandbox escapes are ACCESS_DENIED", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "secret.txt"), "secret\n")
    const root = project({ "out.txt": { link: join(outside, "secret.txt") } })
    for (const path of ["../secret.txt", join(outside, "secret.txt"), "out.txt"]) {
      const { envelope } = await callTool(root, "edit", { path, old_string: "secret", new_string: "leaked" })
      expect(envelope.error?.code).toBe("ACCESS_DENIED")
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n")
  })

  test("dry_run shows the diff, writes nothing, status partial", async () => {
    const root = project({ "a.txt": "one\n" })
    const { envelope } = await callTool(root, "edit", { path: "a.txt", old_string: "one", new_string: "two", dry_run: true })
    expect(envelope.status).toBe("partial")
    expect(envelope.data).toMatchObject({ applied: false, bytes_written: 0 })
    expect(envelope.text).toContain("Dry run: nothing was written.")
    expect(envelope.text).toContain("-one\n+two")
    expect(text(root, "a.txt")).toBe("one\n")
  })

  test("permission 'ask' refused: PERMISSION_DENIED, untouched", async () => {
    const root = project({ "a.txt": "one\n" })
    const { envelope } = await callTool(root, "edit", { path: "a.txt", old_string: "one", new_string: "two" }, { onAsk: () => Effect.succeed(false) })
    expect(envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(text(root, "a.txt")).toBe("one\n")
  })
})

describe("edit: stale-write protection", () => {
  test("never read in the session: CONFLICT with the reason", async () => {
    const root = project({ "a.txt": "one\n" })
    const s = session(root, { enforceReads: true })
    const { envelope } = await s.call("edit", { path: "a.txt", old_string: "one", new_string: "two" })
    expect(envelope.error?.code).toBe("CONFLICT")
    expect(envelope.error?.message).toContain("has not been read in this session")
    expect(text(root, "a.txt")).toBe("one\n")
  })

  test("read, then several edits in a row (each records its own stamp), then a change on disk is CONFLICT", async () => {
    const root = project({ "a.txt": "one\ntwo\n" })
    const s = session(root, { enforceReads: true })
    await s.call("read", { path: "a.txt" })
    expect((await s.call("edit", { path: "a.txt", old_string: "one", new_string: "1" })).envelope.status).toBe("success")
    expect((await s.call("edit", { path: "a.txt", old_string: "two", new_string: "2" })).envelope.status).toBe("success")
    expect(text(root, "a.txt")).toBe("1\n2\n")
    writeFileSync(join(root, "a.txt"), "1\n2\nthree\n")
    const { envelope } = await s.call("edit", { path: "a.txt", old_string: "1", new_string: "one" })
    expect(envelope.error?.code).toBe("CONFLICT")
    expect(envelope.error?.message).toContain("changed on disk since it was last read")
    expect(envelope.error?.message).toContain("size 4 → 10 bytes")
  })

  test("a ledger stamp without a hash is compared by size and mtime", async () => {
    const root = project({ "a.txt": "one\n" })
    const s = session(root, { enforceReads: true })
    const file = join(root, "a.txt")
    const st = statSync(file)
    await s.run(Effect.gen(function* () {
      yield* (yield* FileLedger).record(file, { mtimeMs: st.mtimeMs, size: st.size })
    }))
    expect((await s.call("edit", { path: "a.txt", old_string: "one", new_string: "two" })).envelope.status).toBe("success")
    await s.run(Effect.gen(function* () {
      yield* (yield* FileLedger).record(file, { mtimeMs: 1, size: 4 })
    }))
    expect((await s.call("edit", { path: "a.txt", old_string: "two", new_string: "three" })).envelope.error?.code).toBe("CONFLICT")
  })

  test("expected_sha256 outside a session: mismatch CONFLICT, match applies; it also satisfies a session without a read", async () => {
    const root = project({ "a.txt": "one\n" })
    const wrong = (await callTool(root, "edit", { path: "a.txt", old_string: "one", new_string: "two", expected_sha256: sha("nope") })).envelope
    expect(wrong.error?.code).toBe("CONFLICT")
    expect(text(root, "a.txt")).toBe("one\n")
    const s = session(root, { enforceReads: true })
    const right = (await s.call("edit", { path: "a.txt", old_string: "one", new_string: "two", expected_sha256: sha("one\n") })).envelope
    expect(right.status).toBe("success")
    expect(text(root, "a.txt")).toBe("two\n")
  })

  test("the short hash an answer shows is a valid expected_sha256: it passes while the file is unchanged and is CONFLICT after a change", async () => {
    const root = project({ "a.txt": "one\ntwo\n" })
    const first = (await callTool(root, "edit", { path: "a.txt", old_string: "one", new_string: "ONE" })).envelope
    const short = /sha256 ([0-9a-f]{12})\b/.exec(first.text ?? "")?.[1]
    expect(short).toBe(sha("ONE\ntwo\n").slice(0, 12))
    const second = (await callTool(root, "edit", { path: "a.txt", old_string: "two", new_string: "TWO", expected_sha256: short })).envelope
    expect(second.status).toBe("success")
    const next = /sha256 ([0-9a-f]{12})\b/.exec(second.text ?? "")![1]!
    writeFileSync(join(root, "a.txt"), "ONE\nTWO\nsomeone else\n")
    for (const [tool, params] of [
      ["edit", { path: "a.txt", old_string: "ONE", new_string: "1" }],
      ["multiedit", { path: "a.txt", edits: [{ old_string: "ONE", new_string: "1" }] }],
      ["write", { path: "a.txt", content: "1\n" }],
    ] as const) {
      const stale = (await callTool(root, tool, { ...params, expected_sha256: next })).envelope
      expect(stale.error?.code).toBe("CONFLICT")
    }
    expect(text(root, "a.txt")).toBe("ONE\nTWO\nsomeone else\n")
    // Too short to name one version: refused as a parameter error, not taken as a match.
    expect((await callTool(root, "write", { path: "a.txt", content: "1\n", expected_sha256: next.slice(0, 6) })).envelope.error?.code).toBe("INVALID_PARAM")
  })

  test("creating a file with an empty old_string needs no read", async () => {
    const root = project()
    const s = session(root, { enforceReads: true })
    expect((await s.call("edit", { path: "n.txt", old_string: "", new_string: "x\n" })).envelope.status).toBe("success")
    expect(existsSync(join(root, "n.txt"))).toBe(true)
  })

  test("a file changed by someone else between the edit's read and its write: CONFLICT whose message says so (never empty), nothing written", async () => {
    const root = project({ "a.txt": "one\n" })
    const s = session(root)
    const failure = await s.run(
      Effect.gen(function* () {
        const target = yield* openTarget("a.txt", { maxBytes: 1_000_000, limitKey: "tools.edit.max_file_bytes" })
        writeFileSync(join(root, "a.txt"), "someone else's\n")
        return yield* commitText({ target, text: "mine\n", format: { encoding: "utf-8", bom: false }, dryRun: false, maxDiffLines: 100 }).pipe(Effect.flip)
      }),
    )
    const envelopeError = workspaceToolError(failure as WorkspaceError)
    expect(envelopeError.code).toBe("CONFLICT")
    expect(envelopeError.message).toBe("a.txt changed on disk while this change was being prepared. Nothing was written. Read it again and redo the change.")
    expect(envelopeError.hints?.[0]).toMatchObject({ action: "Read", args: { path: "a.txt" } })
    expect(text(root, "a.txt")).toBe("someone else's\n")
  })
})

describe("edit: large files", () => {
  test("one edit in a 2 MB file changes only its line; the diff is one small hunk with the right line numbers", async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `const value_${i} = ${i} // padding padding`)
    const before = lines.join("\n") + "\n"
    const root = project({ "big.js": before })
    const { envelope } = await callTool(root, "edit", { path: "big.js", old_string: "const value_41234 = 41234", new_string: "const value_41234 = -1" })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ start_line: 41235, additions: 1, deletions: 1 })
    expect((envelope.data.diff as string).split("\n")[2]).toBe("@@ -41232,7 +41232,7 @@")
    expect(text(root, "big.js")).toBe(before.replace("const value_41234 = 41234", "const value_41234 = -1"))
  })
})
