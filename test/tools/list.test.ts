import { describe, expect, test } from "bun:test"
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ErrorCode } from "../../src/protocol/error-code.ts"
import type { ListEntry } from "../../src/tools/list.ts"
import { callTool, project, tempDir } from "../support/harness.ts"

const entries = (data: Record<string, unknown>) => data.entries as Array<ListEntry>
const names = (data: Record<string, unknown>) => entries(data).map((e) => e.name)

describe("list: text layout", () => {
  test("folders first, then files by name; sizes; root-relative paths; header LS: <path>", async () => {
    const root = project({ "src/b.py": "print(1)\n", "src/a.py": "x".repeat(132), "src/pkg/__init__.py": "", "src/Zeta/x": "" })
    const { envelope, meta } = await callTool(root, "list", { path: "src" })
    expect(envelope.status).toBe("success")
    expect(envelope.text).toBe(
      [
        "# LS: src",
        "",
        "Entries shown: 1-4 of 4 (directories first, sorted by name)",
        "Totals: 2 dirs, 2 files, 0 links.",
        "",
        "- [DIR] Zeta/",
        "- [DIR] pkg/",
        "- [FILE] a.py (size=132)",
        "- [FILE] b.py (size=9)",
      ].join("\n"),
    )
    expect(entries(envelope.data).map(({ path, type, size }) => ({ path, type, size }))).toEqual([
      { path: "src/Zeta/", type: "dir", size: 0 },
      { path: "src/pkg/", type: "dir", size: 0 },
      { path: "src/a.py", type: "file", size: 132 },
      { path: "src/b.py", type: "file", size: 9 },
    ])
    expect(typeof entries(envelope.data)[0]!.mtime).toBe("number")
    expect(entries(envelope.data)[0]!.mtime).toBeGreaterThan(1_000_000_000)
    expect(entries(envelope.data)[0]!.mtime).toBeLessThan(10_000_000_000) // seconds, not milliseconds
    expect(envelope.data.truncated).toBe(false)
    expect(envelope.stats).toMatchObject({ total_entries: 4, dirs: 2, files: 2, links: 0 })
    expect(envelope.context).toMatchObject({ path_resolved: "src", truncation_skip: true })
    expect(meta.tool_name).toBe("LS")
  })

  test("path defaults to the working directory; aliases ls and list_files; head_limit is limit", async () => {
    const root = project({ "sub/one.txt": "", "top.txt": "" })
    expect(names((await callTool(root, "ls", {})).envelope.data)).toEqual(["sub", "anvil.json", "top.txt"])
    const inSub = (await callTool(root, "list_files", {}, { cwd: join(root, "sub") })).envelope
    expect(inSub.text).toStartWith("# LS: sub")
    expect(entries(inSub.data)[0]!.path).toBe("sub/one.txt")
    expect((await callTool(root, "LS", { head_limit: 1 })).envelope.data.limit).toBe(1)
  })

  test("an empty folder", async () => {
    const root = project({ empty: { dir: true } })
    const { envelope } = await callTool(root, "list", { path: "empty" })
    expect(envelope.status).toBe("success")
    expect(envelope.data.entries).toEqual([])
    expect(envelope.text).toContain("(empty directory)")
  })
})

describe("list: hidden entries and ignore globs", () => {
  const root = project({
    ".env": "",
    ".github/workflows/ci.yml": "",
    "node_modules/x/index.js": "",
    "__pycache__/a.pyc": "",
    "build/out.js": "",
    "dist/out.js": "",
    "venv/bin/python": "",
    "src/main.py": "",
    "src/gen_parser.py": "",
    "src/test_main.py": "",
    "main.pyc": "",
    "app.py": "",
  })

  test("dotfiles and the default ignore list are hidden unless include_hidden, and the count says so", async () => {
    const hidden = (await callTool(root, "list", {})).envelope
    expect(names(hidden.data)).toEqual(["src", "anvil.json", "app.py", "main.pyc"])
    expect(hidden.stats.hidden).toBe(7)
    expect(hidden.text).toContain("7 hidden or default-ignored entries not shown (include_hidden=true shows them)")
    const all = (await callTool(root, "list", { include_hidden: true })).envelope
    expect(names(all.data)).toEqual([".github", "__pycache__", "build", "dist", "node_modules", "src", "venv", ".env", "anvil.json", "app.py", "main.pyc"])
  })

  test("ignore globs match the name, the root-relative path, and **/ at depth zero", async () => {
    expect(names((await callTool(root, "list", { ignore: ["*.pyc"] })).envelope.data)).toEqual(["src", "anvil.json", "app.py"])
    expect(names((await callTool(root, "list", { path: "src", ignore: ["src/gen_*"] })).envelope.data)).toEqual(["main.py", "test_main.py"])
    expect(names((await callTool(root, "list", { path: "src", ignore: ["**/test_*", "{gen,foo}_*.py"] })).envelope.data)).toEqual(["main.py"])
    expect(names((await callTool(root, "list", { ignore: ["**/app.py"] })).envelope.data)).toEqual(["src", "anvil.json", "main.pyc"])
    const r = (await callTool(root, "list", { ignore: ["src/"] })).envelope
    expect(names(r.data)).toEqual(["anvil.json", "app.py", "main.pyc"])
    expect(r.text).toContain("1 matched the ignore patterns")
  })

  test("a pattern without a trailing / leaves out folders of that name too; with one, only folders", async () => {
    const r = project({ "vendor/x.js": "", "sub/vendor/y.js": "", "sub/vendor.txt": "", "a.txt": "" })
    expect(names((await callTool(r, "list", { ignore: ["vendor"] })).envelope.data)).toEqual(["sub", "a.txt", "anvil.json"])
    expect(names((await callTool(r, "list", { path: "sub", ignore: ["vendor"] })).envelope.data)).toEqual(["vendor.txt"])
    expect(names((await callTool(r, "list", { path: "sub", ignore: ["vendor*/"] })).envelope.data)).toEqual(["vendor.txt"])
    expect(names((await callTool(r, "list", { path: "sub", ignore: ["vendor*"] })).envelope.data)).toEqual([])
    expect(names((await callTool(r, "list", { ignore: ["*.txt"] })).envelope.data)).toEqual(["sub", "vendor", "anvil.json"])
  })

  test(".gitignore'd entries are left out unless include_ignored, and the count says so", async () => {
    const r = project({ ".gitignore": "*.log\nsecret/\n!keep.log\n", "a.log": "", "keep.log": "", "secret/x": "", "src/.gitignore": "gen/\n", "src/gen/x": "", "src/main.py": "" })
    const top = (await callTool(r, "list", {})).envelope
    expect(names(top.data)).toEqual(["src", "anvil.json", "keep.log"])
    expect(top.stats.gitignored).toBe(2)
    expect(top.text).toContain("2 ignored by .gitignore not shown (include_ignored=true shows them)")
    expect(names((await callTool(r, "list", { include_ignored: true })).envelope.data)).toEqual(["secret", "src", "a.log", "anvil.json", "keep.log"])
    // Rules from the folders above apply, and the folder's own.
    expect(names((await callTool(r, "list", { path: "src" })).envelope.data)).toEqual(["main.py"])
    expect(names((await callTool(r, "list", { path: "secret", include_ignored: true })).envelope.data)).toEqual(["x"])
  })

  test("an invalid ignore glob is INVALID_PARAM naming it", async () => {
    const { envelope } = await callTool(root, "list", { ignore: ["*.py", "/etc/*"] })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("ignore.1")
  })

  test("a malformed ignore glob (unclosed [ or {, stray }, reversed range, dangling \\) is INVALID_PARAM with the reason", async () => {
    const cases: Array<[string, string]> = [
      ["[abc", "unclosed character class"],
      ["src/{a,b", "unclosed alternate group"],
      ["a}", "'}' has no matching '{'"],
      ["[z-a]", "its end comes before its start"],
      ["a\\", "escapes nothing"],
    ]
    for (const [glob, reason] of cases) {
      const { envelope } = await callTool(root, "list", { ignore: ["*.pyc", glob] })
      expect(envelope.status).toBe("error")
      expect(envelope.error?.code).toBe("INVALID_PARAM")
      expect(envelope.error?.field_errors?.[0]).toEqual({ field: "ignore.1", message: expect.stringContaining(reason) })
      expect(envelope.text).toContain(glob)
    }
    // Escaped, the same characters are literal and fine.
    expect((await callTool(root, "list", { ignore: ["\\[abc", "a\\}", "x\\\\"] })).envelope.status).toBe("success")
  })

  test("config tools.list.default_ignore replaces the default list", async () => {
    const { envelope } = await callTool(root, "list", {}, { configOverrides: { tools: { list: { default_ignore: ["src"] } } } })
    expect(names(envelope.data)).toEqual(["__pycache__", "build", "dist", "node_modules", "venv", "anvil.json", "app.py", "main.pyc"])
  })
})

describe("list: symbolic links", () => {
  const outside = tempDir("anvil-outside-")
  writeFileSync(join(outside, "secret.txt"), "secret")
  const root = project({
    "real/inner.txt": "",
    "file.txt": "hello",
    "to-dir": { link: "real" },
    "to-file": { link: "file.txt" },
    "to-outside": { link: outside },
    "to-outside-file": { link: join(outside, "secret.txt") },
    "sneaky": { link: "../" },
    "dangling": { link: "missing.txt" },
  })
  symlinkSync("loop-b", join(root, "loop-a"))
  symlinkSync("loop-a", join(root, "loop-b"))

  test("name@ / name@/ with the target; <Outside Sandbox> and <Broken Link>; links to folders sort with folders", async () => {
    const { envelope } = await callTool(root, "list", {})
    const lines = envelope.text.split("\n").filter((l) => l.startsWith("- "))
    expect(lines).toEqual([
      "- [DIR] real/",
      "- [LINK] to-dir@/ -> real",
      "- [FILE] anvil.json (size=3)",
      "- [LINK] dangling@ -> <Broken Link>",
      "- [FILE] file.txt (size=5)",
      "- [LINK] loop-a@ -> <Broken Link>",
      "- [LINK] loop-b@ -> <Broken Link>",
      "- [LINK] sneaky@ -> <Outside Sandbox>",
      "- [LINK] to-file@ -> file.txt",
      "- [LINK] to-outside@ -> <Outside Sandbox>",
      "- [LINK] to-outside-file@ -> <Outside Sandbox>",
    ])
    const byName = Object.fromEntries(entries(envelope.data).map((e) => [e.name, e]))
    expect(byName["to-dir"]).toMatchObject({ type: "link", target: "real", target_type: "dir", path: "to-dir" })
    expect(byName["to-outside"]).toMatchObject({ type: "link", target: "<Outside Sandbox>" })
    expect(byName["to-outside"]!.target_type).toBeUndefined()
    expect(envelope.stats).toMatchObject({ dirs: 1, links: 8, files: 2 })
    expect(envelope.text).not.toContain("secret")
  })

  test("listing through a link: inside is fine, outside is ACCESS_DENIED and never followed", async () => {
    const inside = (await callTool(root, "list", { path: "to-dir" })).envelope
    expect(inside.status).toBe("success")
    expect(entries(inside.data)[0]!.path).toBe("to-dir/inner.txt")
    const out = (await callTool(root, "list", { path: "to-outside" })).envelope
    expect(out.error?.code).toBe("ACCESS_DENIED")
    expect(JSON.stringify(out)).not.toContain("secret.txt")
  })
})

describe("list: pagination", () => {
  const tree: Record<string, string> = {}
  for (let i = 0; i < 250; i++) tree[`many/f${String(i).padStart(3, "0")}.txt`] = ""
  for (let i = 0; i < 5; i++) tree[`many/d${i}/x`] = ""
  const root = project(tree)

  test("default limit 100: partial, truncated, warning and an LS hint for the next page", async () => {
    const { envelope, meta } = await callTool(root, "list", { path: "many" })
    expect(envelope.status).toBe("partial")
    expect(entries(envelope.data)).toHaveLength(100)
    expect(names(envelope.data).slice(0, 6)).toEqual(["d0", "d1", "d2", "d3", "d4", "f000.txt"])
    expect(envelope.data).toMatchObject({ truncated: true, has_more: true, next_offset: 100 })
    expect(envelope.data.warnings).toEqual(["Results truncated to entries 1-100 of 255. Use offset=100 to see the next page."])
    expect(envelope.text).toContain("Entries shown: 1-100 of 255 (directories first, sorted by name) (TRUNCATED)")
    expect(envelope.text).toContain('* LS(path="many", offset=100, limit=100)')
    expect(envelope.stats).toMatchObject({ total_entries: 255, dirs: 5, files: 250 })
    expect(meta.truncation).toMatchObject({ truncated: true, reason: "entry_limit", total_estimate: 255 })
  })

  test("offset pages on; limit is capped at 200; the pages cover every entry once", async () => {
    const first = (await callTool(root, "list", { path: "many", limit: 500 })).envelope
    expect(entries(first.data)).toHaveLength(200)
    // The cap is said, as glob and read say theirs; a limit within it is not remarked on.
    expect(first.text).toContain("(limit 500 capped at the maximum of 200)")
    const second = (await callTool(root, "list", { path: "many", offset: 200, limit: 200 })).envelope
    expect(names(second.data)).toEqual(Array.from({ length: 55 }, (_, i) => `f${String(i + 195).padStart(3, "0")}.txt`))
    expect(second.data).toMatchObject({ has_more: false, next_offset: null })
    expect(second.text).not.toContain("capped")
    expect(new Set([...names(first.data), ...names(second.data)]).size).toBe(255)
  })

  test("an offset past the end is INVALID_PARAM", async () => {
    const { envelope } = await callTool(root, "list", { path: "many", offset: 255 })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors?.[0]?.field).toBe("offset")
  })

  test("sort_by mtime (newest first) and size (largest first), folders still first", async () => {
    const r = project({ "old.txt": "aaaaaaaaaa", "new.txt": "a", "mid.txt": "aaaaa", "dir/x": "" })
    const t = Date.now() / 1000
    utimesSync(join(r, "old.txt"), t - 3000, t - 3000)
    utimesSync(join(r, "mid.txt"), t - 2000, t - 2000)
    utimesSync(join(r, "anvil.json"), t - 5000, t - 5000)
    utimesSync(join(r, "new.txt"), t - 10, t - 10)
    expect(names((await callTool(r, "list", { sort_by: "mtime" })).envelope.data)).toEqual(["dir", "new.txt", "mid.txt", "old.txt", "anvil.json"])
    expect(names((await callTool(r, "list", { sort_by: "size" })).envelope.data)).toEqual(["dir", "old.txt", "mid.txt", "anvil.json", "new.txt"])
    expect((await callTool(r, "list", { sort_by: "mtime" })).envelope.text).toContain("modified ")
    expect((await callTool(r, "list", { sort_by: "age" })).envelope.error?.code).toBe("INVALID_PARAM")
  })
})

describe("list: errors and sandbox", () => {
  const outside = tempDir("anvil-outside-")
  mkdirSync(join(outside, "private"))
  writeFileSync(join(outside, "private", "confidential.txt"), "")
  writeFileSync(join(outside, "confidential-top.txt"), "")
  const root = project({ "src/pkg/a.py": "", "docs/index.md": "", "main.py": "", "out": { link: outside } })
  symlinkSync("loop-b", join(root, "loop-a"))
  symlinkSync("loop-a", join(root, "loop-b"))

  test("NOT_FOUND suggests similar folders and hints LS on the parent", async () => {
    const { envelope } = await callTool(root, "list", { path: "src/pkgg" })
    expect(envelope.error?.code).toBe("NOT_FOUND")
    expect(envelope.error?.message).toBe("Directory not found: src/pkgg")
    expect(envelope.text).toContain("Did you mean:\n- src/pkg")
    expect(envelope.text).toContain('* LS(path="src")')
  })

  test("a file is not a directory: INVALID_PARAM with a Read hint", async () => {
    const { envelope, meta } = await callTool(root, "list", { path: "main.py" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("not a directory")
    expect(meta.retrieval_hints?.[0]).toEqual({ action: "Read", priority: "high", args: { path: "main.py" } })
  })

  test.each([
    ["..", "ACCESS_DENIED"],
    ["../..", "ACCESS_DENIED"],
    [outside, "ACCESS_DENIED"],
    ["/", "ACCESS_DENIED"],
    ["out", "ACCESS_DENIED"],
    ["out/private", "ACCESS_DENIED"],
    ["loop-a", "INVALID_PARAM"],
    ["src\0", "INVALID_PARAM"],
    ["x".repeat(300), "INVALID_PARAM"],
  ] as Array<[string, ErrorCode]>)("%s → %s", async (path, code) => {
    const { envelope } = await callTool(root, "list", { path })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe(code)
    expect(JSON.stringify(envelope)).not.toContain("confidential")
  })
})
