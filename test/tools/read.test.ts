import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { closeSync, mkdirSync, openSync, statSync, symlinkSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { main } from "../../src/cli/index.ts"
import type { ErrorCode } from "../../src/protocol/error-code.ts"
import { FileLedger } from "../../src/workspace/file-ledger.ts"
import { callTool, project, session, tempDir } from "../support/harness.ts"

const numbered = (from: number, lines: ReadonlyArray<string>) => lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join("\n")
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i)
const linesFile = (n: number, f = (i: number) => `line ${i}`) => range(1, n).map(f).join("\n") + "\n"

describe("read: success", () => {
  const body = ["def main():", "    return 42", ...range(3, 9321).map((i) => `# filler ${i}`)].join("\n") + "\n"

  test("the reference example: two numbered lines of 9321, partial with line_limit, next offset and hints", async () => {
    const root = project({ "app/main.py": body })
    const { envelope, meta } = await callTool(root, "read", { path: "app/main.py", limit: 2 })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.content).toBe("     1\tdef main():\n     2\t    return 42")
    expect(envelope.data).toMatchObject({ total_lines: 9321, lines_returned: 2, has_more: true, next_offset: 2, truncated: true, start_line: 1, end_line: 2 })
    expect(envelope.text).toStartWith("# Read: app/main.py\n\nLines 1-2 of 9321 (TRUNCATED: line_limit)\n\n     1\tdef main():\n     2\t    return 42")
    expect(envelope.text).toContain('* Read(path="app/main.py", offset=2, limit=2)')
    expect(envelope.text).toContain('* Grep(pattern="<keyword>", path="app/main.py")')
    expect(envelope.context.truncation_skip).toBe(true)
    expect(envelope.context.path_resolved).toBe("app/main.py")
    expect(envelope.stats.total_lines).toBe(9321)
    expect(meta.tool_name).toBe("Read")
    expect(meta.truncation).toEqual({ truncated: true, reason: "line_limit", shown_range: { start_line: 1, end_line: 2 }, total_estimate: 9321 })
    expect(meta.retrieval_hints?.[0]).toEqual({ action: "Read", priority: "high", args: { path: "app/main.py", offset: 2, limit: 2 } })
  })

  test("the alternative parameter names (file_path, offset_line, limit_lines) and the read_file alias", async () => {
    const root = project({ "app/main.py": body })
    const { envelope } = await callTool(root, "read_file", { file_path: "app/main.py", offset_line: 2, limit_lines: 3 })
    expect(envelope.data.content).toBe(numbered(3, ["# filler 3", "# filler 4", "# filler 5"]))
    expect(envelope.data.next_offset).toBe(5)
  })

  test("a whole small file is success, not truncated, with no hints", async () => {
    const root = project({ "a.py": "x = 1\ny = 2\n" })
    const { envelope, meta } = await callTool(root, "Read", { path: "a.py" })
    expect(envelope.status).toBe("success")
    expect(envelope.text).toBe("# Read: a.py\n\nLines 1-2 of 2\n\n     1\tx = 1\n     2\ty = 2")
    expect(envelope.data).toMatchObject({ truncated: false, has_more: false, next_offset: null, total_lines: 2, final_newline: true, whole_file: true })
    expect(meta.truncation).toBeUndefined()
  })
})

describe("read: limits", () => {
  const root = project({ "many.txt": linesFile(500) })

  test("default limit 50; max 200 (a larger limit is capped and said so)", async () => {
    const def = (await callTool(root, "read", { path: "many.txt" })).envelope
    expect(def.data).toMatchObject({ start_line: 1, end_line: 50, lines_returned: 50, next_offset: 50 })
    const big = (await callTool(root, "read", { path: "many.txt", limit: 1000 })).envelope
    expect(big.data).toMatchObject({ lines_returned: 200, end_line: 200 })
    expect(big.text).toContain("limit 1000 is above the maximum of 200")
  })

  test("limits come from config tools.read.default_limit / max_limit", async () => {
    const configOverrides = { tools: { read: { default_limit: 7, max_limit: 10 } } }
    expect((await callTool(root, "read", { path: "many.txt" }, { configOverrides })).envelope.data.lines_returned).toBe(7)
    expect((await callTool(root, "read", { path: "many.txt", limit: 50 }, { configOverrides })).envelope.data.lines_returned).toBe(10)
  })

  test("offset counts lines skipped; the last page has no next offset", async () => {
    const { envelope } = await callTool(root, "read", { path: "many.txt", offset: 480, limit: 50 })
    expect(envelope.data.content).toBe(numbered(481, range(481, 500).map((i) => `line ${i}`)))
    expect(envelope.data).toMatchObject({ has_more: false, next_offset: null, start_line: 481, end_line: 500, total_lines: 500 })
    // Part of the file only (lines before it): partial, pointing at the previous page.
    expect(envelope.status).toBe("partial")
    expect(envelope.text).toContain('Read(path="many.txt", offset=430, limit=50)')
  })

  test("an offset past the end is INVALID_PARAM naming the length", async () => {
    const { envelope } = await callTool(root, "read", { path: "many.txt", offset: 500 })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("offset")
    expect(envelope.error?.message).toContain("500 lines")
  })

  test("invalid parameter types are INVALID_PARAM with field errors", async () => {
    const { envelope } = await callTool(root, "read", { path: "many.txt", limit: 0, offset: 1.5 })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.map((f) => f.field).sort()).toEqual(["limit", "offset"])
    expect((await callTool(root, "read", {})).envelope.error?.field_errors?.[0]?.field).toBe("path")
  })

  test("long lines are cut at max_line_length with a marker; status partial with reason line_length", async () => {
    const r = project({ "min.js": `short\n${"é".repeat(30)}\n` })
    const { envelope, meta } = await callTool(r, "read", { path: "min.js" }, { configOverrides: { tools: { read: { max_line_length: 10 } } } })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.content).toBe(`     1\tshort\n     2\t${"é".repeat(10)}… [line cut: characters 1-10 of 30; the rest from column=10]`)
    expect(envelope.data.long_lines_cut).toBe(1)
    expect(meta.truncation?.reason).toBe("line_length")
  })

  test("one read returns at most the byte budget (the tool paginates itself, so it must bound itself)", async () => {
    const r = project({ "wide.txt": linesFile(100, (i) => `${i} ${"w".repeat(1500)}`) })
    const { envelope, meta } = await callTool(r, "read", { path: "wide.txt", limit: 200 })
    expect(envelope.status).toBe("partial")
    expect(String(envelope.data.content).length).toBeLessThan(51200)
    expect(envelope.data.lines_returned).toBe(33)
    expect(envelope.data.next_offset).toBe(33)
    expect(meta.truncation?.reason).toBe("byte_limit")
    expect(envelope.text).toContain("output budget")
  })
})

describe("read: tail mode (negative offset)", () => {
  const root = project({ "log.txt": linesFile(120) })

  test("offset=-N returns the last N lines with their real numbers", async () => {
    const { envelope } = await callTool(root, "read", { path: "log.txt", offset: -3 })
    expect(envelope.data.content).toBe(numbered(118, ["line 118", "line 119", "line 120"]))
    expect(envelope.data).toMatchObject({ start_line: 118, end_line: 120, total_lines: 120, has_more: false })
    expect(envelope.text).toContain("Lines 118-120 of 120 (TRUNCATED: line_limit)")
    // The page before it.
    expect(envelope.text).toContain('Read(path="log.txt", offset=114, limit=3)')
  })

  test("offset=-N with a smaller limit starts N lines from the end", async () => {
    const { envelope } = await callTool(root, "read", { path: "log.txt", offset: -10, limit: 2 })
    expect(envelope.data).toMatchObject({ start_line: 111, end_line: 112, next_offset: 112, has_more: true })
  })

  test("offset=-N beyond the file's length returns the whole file", async () => {
    const { envelope } = await callTool(root, "read", { path: "log.txt", offset: -200 })
    expect(envelope.data).toMatchObject({ start_line: 1, end_line: 120, lines_returned: 120, truncated: false })
    expect(envelope.status).toBe("success")
  })

  test("above the counting limit the tail is found from the end and numbered from the end (-1 = last line)", async () => {
    const configOverrides = { tools: { read: { count_max_bytes: 100 } } }
    const { envelope, meta } = await callTool(root, "read", { path: "log.txt", offset: -3 }, { configOverrides })
    expect(envelope.data.content).toBe(numbered(-3, ["line 118", "line 119", "line 120"]))
    expect(envelope.data).toMatchObject({ start_line: -3, end_line: -1, total_lines: null, has_more: false })
    expect(typeof envelope.data.total_lines_estimate).toBe("number")
    expect(envelope.text).toContain("Lines -3 to -1, counted from the end")
    expect(envelope.text).toContain("Total line count not computed")
    expect(envelope.text).toContain('Read(path="log.txt", offset=-6, limit=3)')
    expect(meta.truncation?.shown_range).toEqual({ start_line: -3, end_line: -1 })
    // A window that stops short of the end points to the rest by a negative offset.
    const mid = (await callTool(root, "read", { path: "log.txt", offset: -10, limit: 4 }, { configOverrides })).envelope
    expect(mid.data).toMatchObject({ start_line: -10, end_line: -7, next_offset: -6 })
    // Reaching the start of the file makes the count exact again.
    const all = (await callTool(root, "read", { path: "log.txt", offset: -150 }, { configOverrides })).envelope
    expect(all.data).toMatchObject({ start_line: 1, end_line: 120, total_lines: 120 })
  })

  test("a head read of an uncounted file says so and still knows whether more follows", async () => {
    const { envelope } = await callTool(root, "read", { path: "log.txt", limit: 2 }, { configOverrides: { tools: { read: { count_max_bytes: 100 } } } })
    expect(envelope.data).toMatchObject({ total_lines: null, has_more: true, next_offset: 2 })
    expect(envelope.text).toContain("Lines 1-2 of more than 2 (total not counted)")
  })
})

describe("read: large files (the benchmark's call, at test size)", () => {
  test("a 50 MB file read with offset -50 returns the right last 50 lines and the right total", async () => {
    const root = tempDir()
    const file = join(root, "big")
    const lines = 1_000_000
    const fd = openSync(file, "w")
    const chunk = 50_000
    for (let start = 0; start < lines; start += chunk) {
      let s = ""
      for (let i = start; i < start + chunk; i++) s += `${String(i + 1).padStart(8, "0")} ${"payload-".repeat(5)}\n`
      writeSync(fd, s)
    }
    closeSync(fd)
    expect(statSync(file).size).toBeGreaterThan(49_000_000)
    const { envelope } = await callTool(root, "read", { path: "big", offset: -50 })
    expect(envelope.data.total_lines).toBe(lines)
    expect(envelope.data).toMatchObject({ start_line: lines - 49, end_line: lines, lines_returned: 50, has_more: false })
    const content = String(envelope.data.content).split("\n")
    expect(content[0]).toBe(`${lines - 49}\t${String(lines - 49).padStart(8, "0")} ${"payload-".repeat(5)}`)
    expect(content[49]).toBe(`${lines}\t${String(lines).padStart(8, "0")} ${"payload-".repeat(5)}`)
    // Above the counting limit the same call answers from the end without a count.
    const fromEnd = (await callTool(root, "read", { path: "big", offset: -50 }, { configOverrides: { tools: { read: { count_max_bytes: 1024 } } } })).envelope
    expect(fromEnd.data.content).toBe(content.map((l, i) => l.replace(/^\d+/, String(i - 50).padStart(6))).join("\n"))
    expect(fromEnd.data.total_lines).toBeNull()
  })
})

describe("read: the command line", () => {
  test("`anvil tool read '{\"path\":\"big\",\"offset\":-50}'` (the benchmark's call) prints the envelope with the last 50 lines", async () => {
    const root = project({ big: linesFile(1000) })
    let out = ""
    const code = await main(["tool", "read", '{"path":"big","offset":-50}'], {
      out: (t) => void (out += t),
      err: () => {},
      readStdin: async () => "",
      cwd: root,
      env: {},
    })
    expect(code).toBe(0)
    const envelope = JSON.parse(out)
    expect(envelope.data).toMatchObject({ start_line: 951, end_line: 1000, total_lines: 1000, lines_returned: 50 })
    expect(envelope.data.content.split("\n")[49]).toBe("  1000\tline 1000")
  })
})

describe("read: encodings, BOM and line endings reported faithfully", () => {
  test("UTF-8 BOM: not shown in the content, reported in data and text", async () => {
    const root = project({ "bom.txt": "\uFEFFhello\nworld\n" })
    const { envelope } = await callTool(root, "read", { path: "bom.txt" })
    expect(envelope.data.content).toBe(numbered(1, ["hello", "world"]))
    expect(envelope.data).toMatchObject({ encoding: "utf-8", bom: true, total_lines: 2 })
    expect(envelope.text).toContain("with a byte-order mark")
  })

  test("CRLF: lines shown without the CR, line_ending crlf; mixed files say mixed", async () => {
    const root = project({ "w.txt": "a\r\nb\r\n", "m.txt": "a\r\nb\nc\n" })
    const w = (await callTool(root, "read", { path: "w.txt" })).envelope
    expect(w.data.content).toBe(numbered(1, ["a", "b"]))
    expect(w.data.line_ending).toBe("crlf")
    expect(w.text).toContain("CRLF line endings")
    const m = (await callTool(root, "read", { path: "m.txt" })).envelope
    expect(m.data.line_ending).toBe("mixed")
  })

  test("CR-only line ends (classic Mac OS): one line as ripgrep reads it, line_ending cr, and the text says so", async () => {
    const root = project({ "mac.txt": "one\rtwo\rthree\r", "flat.txt": "one" })
    const mac = (await callTool(root, "read", { path: "mac.txt" })).envelope
    expect(mac.data).toMatchObject({ line_ending: "cr", total_lines: 1 })
    expect(mac.text).toContain("CR-only line endings (classic Mac OS)")
    // grep numbers it the same way: one line.
    const found = (await callTool(root, "grep", { pattern: "two" })).envelope
    expect(found.text).toContain("1: one\rtwo\rthree")
    // A file with no break of either kind is still none, and a tail read of the CR file agrees.
    expect((await callTool(root, "read", { path: "flat.txt" })).envelope.data.line_ending).toBe("none")
    expect((await callTool(root, "read", { path: "mac.txt", offset: -1 })).envelope.data.line_ending).toBe("cr")
  })

  test("no newline at end of file is reported", async () => {
    const root = project({ "n.txt": "a\nb" })
    const { envelope } = await callTool(root, "read", { path: "n.txt" })
    expect(envelope.data).toMatchObject({ final_newline: false, total_lines: 2 })
    expect(envelope.text).toContain("No newline at end of file.")
  })

  test("UTF-16 LE and BE with a BOM are decoded", async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\r\n", "utf16le")])
    const be = Buffer.from(le)
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1]!, be[i]!]
    const root = project({ "le.txt": le, "be.txt": be })
    for (const [name, encoding] of [["le.txt", "utf-16le"], ["be.txt", "utf-16be"]] as const) {
      const { envelope } = await callTool(root, "read", { path: name })
      expect(envelope.status).toBe("success")
      expect(envelope.data.content).toBe(numbered(1, ["héllo", "wörld"]))
      expect(envelope.data).toMatchObject({ encoding, bom: true, line_ending: "crlf" })
    }
  })

  test("a file that is not valid UTF-8 is read byte for byte as Latin-1 and says so", async () => {
    const root = project({ "l1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) })
    const { envelope } = await callTool(root, "read", { path: "l1.txt" })
    expect(envelope.data.content).toBe(numbered(1, ["café"]))
    expect(envelope.data.encoding).toBe("latin1")
    expect(envelope.text).toContain("not valid UTF-8")
  })

  test("an empty file", async () => {
    const root = project({ "e.txt": "" })
    const { envelope } = await callTool(root, "read", { path: "e.txt" })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ content: "", total_lines: 0, lines_returned: 0, has_more: false })
    expect(envelope.text).toContain("Empty file")
  })
})

describe("read: errors", () => {
  test("NOT_FOUND suggests up to three similar paths: same folder, misspelt folder, neighbouring folder", async () => {
    const root = project({ "src/main.py": "", "src/utils/helper.py": "", "lib/config.py": "", "README.md": "" })
    const same = (await callTool(root, "read", { path: "src/mian.py" })).envelope
    expect(same.error?.code).toBe("NOT_FOUND")
    expect(same.error?.message).toBe("File not found: src/mian.py")
    expect(same.text).toContain("Did you mean:\n- src/main.py")
    expect(same.text).toContain('* Read(path="src/main.py")')
    expect(same.text).toContain('* LS(path="src")')
    const folder = (await callTool(root, "read", { path: "src/utlis/helper.py" })).envelope
    expect(folder.text).toContain("- src/utils/helper.py")
    const nearby = (await callTool(root, "read", { path: "config.py" })).envelope
    expect(nearby.text).toContain("- lib/config.py")
    const nothing = (await callTool(root, "read", { path: "zzzzzzzz.qq" })).envelope
    expect(nothing.text).not.toContain("Did you mean")
  })

  test("IS_DIRECTORY with a hint to call LS", async () => {
    const root = project({ "pkg/a.py": "" })
    const { envelope, meta } = await callTool(root, "read", { path: "pkg" })
    expect(envelope.error?.code).toBe("IS_DIRECTORY")
    expect(meta.retrieval_hints?.[0]).toEqual({ action: "LS", priority: "high", args: { path: "pkg" } })
  })

  test("BINARY_FILE: a NUL byte in the first block (64 KiB, as ripgrep judges); control characters are text", async () => {
    const root = project({
      "nul.bin": Buffer.concat([Buffer.from("looks like text"), Buffer.from([0]), Buffer.from("more")]),
      "late.bin": Buffer.concat([Buffer.from("a\n".repeat(20_000)), Buffer.from([0]), Buffer.from("more")]),
      "ctl.txt": Buffer.from(range(1, 400).map((i) => (i % 3 === 0 ? 65 : (i % 8) + 1))),
    })
    expect((await callTool(root, "read", { path: "nul.bin" })).envelope.error?.code).toBe("BINARY_FILE")
    expect((await callTool(root, "read", { path: "late.bin" })).envelope.error?.code).toBe("BINARY_FILE")
    expect((await callTool(root, "read", { path: "ctl.txt" })).envelope.status).toBe("success")
  })

  test("a FIFO is refused without blocking", async () => {
    const root = project()
    const made = Bun.spawnSync(["mkfifo", join(root, "pipe")])
    if (made.exitCode !== 0) return
    const { envelope } = await callTool(root, "read", { path: "pipe" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("not a regular file")
  })

  test("a dangling symlink is NOT_FOUND", async () => {
    const root = project({ dangling: { link: "nowhere.txt" } })
    const { envelope } = await callTool(root, "read", { path: "dangling" })
    expect(envelope.error?.code).toBe("NOT_FOUND")
    expect(envelope.error?.message).toContain("symbolic link")
  })
})

describe("read: sandbox", () => {
  const outside = tempDir("anvil-outside-")
  const root = project({ "in.txt": "inside\n", "out.txt": { link: join(outside, "secret.txt") } })
  writeFileSync(join(outside, "secret.txt"), "secret\n")
  symlinkSync("loop-b", join(root, "loop-a"))
  symlinkSync("loop-a", join(root, "loop-b"))

  test.each([
    ["../secret.txt", "ACCESS_DENIED"],
    [join(outside, "secret.txt"), "ACCESS_DENIED"],
    ["out.txt", "ACCESS_DENIED"],
    ["/etc/passwd", "ACCESS_DENIED"],
    ["loop-a", "INVALID_PARAM"],
    ["in\0.txt", "INVALID_PARAM"],
    [`${"x".repeat(300)}.txt`, "INVALID_PARAM"],
    [`${"d/".repeat(2100)}f.txt`, "INVALID_PARAM"],
  ] as Array<[string, ErrorCode]>)("%s → %s, never the outside content", async (path, code) => {
    const { envelope } = await callTool(root, "read", { path })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe(code)
    expect(JSON.stringify(envelope)).not.toContain("secret\\n")
  })

  test("an absolute path inside the root is fine and shown root-relative", async () => {
    const { envelope } = await callTool(root, "read", { path: join(root, "in.txt") })
    expect(envelope.status).toBe("success")
    expect(envelope.text).toStartWith("# Read: in.txt")
  })

  test("a relative path resolves against the working directory", async () => {
    mkdirSync(join(root, "sub"), { recursive: true })
    writeFileSync(join(root, "sub", "x.txt"), "x\n")
    const { envelope } = await callTool(root, "read", { path: "x.txt" }, { cwd: join(root, "sub") })
    expect(envelope.data.path).toBe("sub/x.txt")
  })
})

describe("read: the FileLedger records what was read", () => {
  test("a whole-file read records mtime, size and sha256; a partial read records no hash", async () => {
    const root = project({ "a.txt": "one\ntwo\n", "long.txt": linesFile(100) })
    const s = session(root, { enforceReads: true })
    await s.call("read", { path: "a.txt" })
    await s.call("read", { path: "long.txt", limit: 5 })
    const seen = (p: string) =>
      s.run(
        Effect.gen(function* () {
          return yield* (yield* FileLedger).lastSeen(join(root, p))
        }),
      )
    const a = await seen("a.txt")
    expect(a).toEqual({
      mtimeMs: Math.floor(statSync(join(root, "a.txt")).mtimeMs),
      size: 8,
      sha256: createHash("sha256").update("one\ntwo\n").digest("hex"),
    })
    const long = await seen("long.txt")
    expect(long?.size).toBe(statSync(join(root, "long.txt")).size)
    expect(long?.sha256).toBeUndefined()
  })
})
