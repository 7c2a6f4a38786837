import { describe, expect, test } from "bun:test"
import { rgPath } from "@vscode/ripgrep"
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { DEFAULT_IGNORED_DIRS } from "../../src/workspace/ignore-rules.ts"
import { crlfModeFor } from "../../src/search/rust-regex.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"
import { callTool, project, tempDir, writeTree, type CallOptions } from "../support/harness.ts"

const BUILTIN: CallOptions = { configOverrides: { tools: { grep: { engine: "builtin" } } } }

const grep = async (root: string, params: Record<string, unknown>, options: CallOptions = {}) =>
  (await callTool(root, "grep", params, options)).envelope

type Match = { file: string; line: number; text: string }
const matchesOf = (e: { data: Record<string, unknown> }) => (e.data.matches ?? []) as Array<Match>
const keys = (e: { data: Record<string, unknown> }) => matchesOf(e).map((m) => `${m.file}:${m.line}`).sort()

/** rg run directly with the flags anvil's grep means: hidden searched, .git and the default list never, ignore files honoured. */
const rgDirect = (root: string, pattern: string, caseSensitive: boolean, extra: ReadonlyArray<string> = []): Array<string> => {
  const r = spawnSync(
    rgPath,
    [
      "--no-config",
      "--hidden",
      "--no-require-git",
      "--no-ignore-global",
      caseSensitive ? "--case-sensitive" : "--ignore-case",
      // CRLF lines, as anvil reads them unless the pattern names a \r itself.
      ...(crlfModeFor(pattern) ? ["--crlf"] : []),
      "--line-number",
      "--no-heading",
      "--with-filename",
      "--null",
      ...DEFAULT_IGNORED_DIRS.flatMap((d) => ["--glob", `!${d}/`]),
      "--glob",
      "!.git",
      ...extra,
      "--regexp",
      pattern,
      "--",
      ".",
    ],
    { cwd: root, encoding: "utf8" },
  )
  if (r.status === 2) throw new Error(`rg failed: ${r.stderr}`)
  return r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [file, rest] = l.split("\0") as [string, string]
      return `${file.replace(/^\.\//, "")}:${rest.slice(0, rest.indexOf(":"))}`
    })
    .sort()
}

const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])

/** A repository with everything grep must get right. */
const fixture = (home: string) => {
  const root = gitRepo(home, {
    ".gitignore": "*.log\nignored-dir/\n!keep.log\n",
    "src/app.ts": "export class User {\n  const userName = 'x'\n  // TODO: fix the user\n}\nconst café = 'naïve Ünïcödé user'\n",
    "src/util.py": "def user_name():\n    pass\n\nclass UserError(Exception):\n    # todo later\n    pass\n",
    "src/deep/nested/x.go": "package x\n\nfunc User() {}\n",
    "src/crlf.txt": "user\r\nUSER line\r\nother\r\n",
    "src/utf16.txt": utf16("first\nthe user here\n"),
    "src/bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("user with bom\n")]),
    "src/no-newline.txt": "last user",
    ".hidden/config.yml": "user: admin\n",
    ".env": "USER=admin\n",
    "a.log": "user in log\n",
    "keep.log": "user kept\n",
    "ignored-dir/f.ts": "class User {}\n",
    "node_modules/pkg/index.js": "module.exports = user\n",
    "dist/out.js": "user\n",
    "bin.dat": Buffer.from("user\0binary\n"),
    "sub/.ignore": "*.gen.ts\n",
    "sub/a.gen.ts": "user generated\n",
    "sub/b.ts": "user b\n",
    "Greek.txt": "ΑΒΓ αβγ Ωmega\nStraße\nk K \u212A\n١٢٣ 123\n",
    "link.ts": { link: "src/app.ts" },
  })
  writeFileSync(join(root, ".git", "user-notes"), "user in .git\n")
  return root
}

describe("grep answers what ripgrep answers (both engines)", () => {
  const home = gitHome()
  const root = fixture(home)
  const cases: Array<[string, boolean]> = [
    ["user", false],
    ["user", true],
    ["User", true],
    ["class\\s+User", false],
    ["\\bUser\\b", true],
    ["^def ", false],
    ["user$", false],
    ["TODO|fixme", false],
    ["[[:upper:]]SER", true],
    ["\\w+é", false],
    ["caf\\w", false],
    ["Ü", false],
    ["\\d+", false],
    ["(?-u:\\d)+", false],
    ["\\p{Greek}+", false],
    ["\\p{Lu}", true],
    ["(?i-u)k", true],
    ["u.er", false],
    ["user(?-i:Name)", false],
    ["^$", false],
    ["", false],
    ["ß", false],
    ["\\x{212A}", true],
    ["[a-z&&[^aeiou]]ser", false],
    ["(?x) user \\ in", false],
    ["\\<user", false],
    ["user\\>", false],
    ["(?P<word>user)_name", false],
    ["[^\\x00-\\x7F]", false],
  ]
  test.each(cases)("/%s/ case_sensitive=%s", async (pattern, caseSensitive) => {
    const expected = rgDirect(root, pattern, caseSensitive)
    const viaRg = await grep(root, { pattern, case_sensitive: caseSensitive, max_matches: 2000 })
    const viaBuiltin = await grep(root, { pattern, case_sensitive: caseSensitive, max_matches: 2000 }, BUILTIN)
    expect(viaRg.data.engine).toBe("rg")
    expect(viaBuiltin.data.engine).toBe("builtin")
    expect(keys(viaRg)).toEqual(expected)
    expect(keys(viaBuiltin)).toEqual(expected)
    expect(viaRg.data.total_matches).toBe(expected.length)
    expect(viaBuiltin.data.total_matches).toBe(expected.length)
    // The same text too.
    expect(matchesOf(viaBuiltin).map((m) => m.text).sort()).toEqual(matchesOf(viaRg).map((m) => m.text).sort())
  })

  test("CRLF files: `$` matches before the \\r and `^` after a lone one, as ripgrep --crlf; a pattern naming \\r is read without it", async () => {
    const crlfRoot = project({
      "crlf.txt": "foo\r\nbar foo\r\nfoo.\r\nfoox\r\n\r\nend foo  \r\n",
      "lone-cr.txt": "fo\rx foo\nab\r\r\n\rstart\n",
      "lf.txt": "foo\nbar foo\n\n",
      "last-cr.txt": "tail foo\r",
    })
    const expectations: Array<[string, Array<string>]> = [
      ["foo$", ["crlf.txt:1", "crlf.txt:2", "lf.txt:1", "lf.txt:2", "last-cr.txt:1", "lone-cr.txt:1"]],
      ["^x", ["lone-cr.txt:1"]],
      ["\\r$", ["crlf.txt:1", "crlf.txt:2", "crlf.txt:3", "crlf.txt:4", "crlf.txt:5", "crlf.txt:6", "lone-cr.txt:2", "last-cr.txt:1"]],
      ["o\\.$", ["crlf.txt:3"]],
    ]
    for (const [pattern, lines] of expectations) expect(rgDirect(crlfRoot, pattern, false)).toEqual(lines.sort())
    const patterns = ["foo$", "^$", "o$", "^x", "^start", "\\s$", "foo\\s*$", "[^a]$", "\\W$", ".$", "foo.$", "\\B$", "^", "$", "(?-R)foo$", "\\r$", "[\\r]", "\\x0D", "a|\\r", "[^\\r]+$", "(?m)^\\w+$", "[[:cntrl:]]", "[\\x00-\\x1f]x", "b\\b", "foo\\z", "\\z", "start\\z", "\\Astart"]
    for (const pattern of patterns) {
      const expected = rgDirect(crlfRoot, pattern, false)
      const texts: Array<Array<string>> = []
      for (const options of [{}, BUILTIN]) {
        const e = await grep(crlfRoot, { pattern, max_matches: 2000 }, options)
        expect({ pattern, engine: e.data.engine, keys: keys(e) }).toEqual({ pattern, engine: options === BUILTIN ? "builtin" : "rg", keys: expected })
        texts.push(matchesOf(e).map((m) => `${m.file}:${m.line}:${m.text}`).sort())
      }
      // The same lines shown too: a `\r` ending the file without a `\n` is no CRLF ending, and is kept by both.
      expect({ pattern, builtin: texts[1] }).toEqual({ pattern, builtin: texts[0]! })
    }
  })

  test("bytes that are not UTF-8 (Latin-1) match no Unicode class, as in ripgrep, on both engines; shown as U+FFFD", async () => {
    // 256 KiB pieces: a valid "é" cut across the first boundary, Latin-1 bytes across the second.
    const piece = 256 * 1024
    const big = Buffer.alloc(2 * piece + 64, 0x61)
    for (let i = 99; i < big.length; i += 100) big[i] = 0x0a
    Buffer.from("\nna\u00efve caf\u00e9 z\n").copy(big, piece - 12)
    Buffer.from("\ncaf\xe9 na\xefve y\n", "latin1").copy(big, 2 * piece - 8)
    const latinRoot = project({ "latin.txt": Buffer.from("caf\xe9 foo\nna\xefve\n", "latin1"), "utf8.txt": "café foo\n", "big.txt": big })
    for (const pattern of ["caf. ", "caf\\W", "caf[^x]", "na.ve", "\\x{FFFD}", "(?-u:caf.)", "foo$", "caf\\S [yz]$"]) {
      const expected = rgDirect(latinRoot, pattern, false)
      const viaRg = await grep(latinRoot, { pattern, max_matches: 2000 })
      const viaBuiltin = await grep(latinRoot, { pattern, max_matches: 2000 }, BUILTIN)
      expect({ pattern, rg: keys(viaRg), builtin: keys(viaBuiltin) }).toEqual({ pattern, rg: expected, builtin: expected })
      expect(matchesOf(viaBuiltin).map((m) => m.text).sort()).toEqual(matchesOf(viaRg).map((m) => m.text).sort())
    }
    expect(matchesOf(await grep(latinRoot, { pattern: "foo", path: "latin.txt" }, BUILTIN))[0]!.text).toBe("caf\uFFFD foo")
  })

  test("what is searched and what is not: hidden yes; .git, binary, ignored, default list, symlinks no", async () => {
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "user", max_matches: 500 }, options)
      const files = new Set(matchesOf(e).map((m) => m.file))
      expect(files.has(".hidden/config.yml")).toBe(true)
      expect(files.has(".env")).toBe(true)
      expect(files.has("keep.log")).toBe(true)
      expect(files.has("src/utf16.txt")).toBe(true)
      expect(files.has("src/bom.txt")).toBe(true)
      for (const skipped of [".git/user-notes", "bin.dat", "a.log", "ignored-dir/f.ts", "node_modules/pkg/index.js", "dist/out.js", "sub/a.gen.ts", "link.ts"]) {
        expect(files.has(skipped)).toBe(false)
      }
    }
  })

  test("an include glob never brings ignored files back (ripgrep's --glob would)", async () => {
    for (const options of [{}, BUILTIN]) {
      const logs = await grep(root, { pattern: "user", include: "*.log" }, options)
      expect(keys(logs)).toEqual(["keep.log:1"])
      const ts = await grep(root, { pattern: "user|User", include: "*.ts" }, options)
      expect([...new Set(matchesOf(ts).map((m) => m.file))].sort()).toEqual(["src/app.ts", "sub/b.ts"])
    }
  })

  test("a file given as path that include leaves out is not searched, and the answer says so (not a silent no match)", async () => {
    const dir = project({ "notes.txt": "needle\n" })
    for (const options of [{}, BUILTIN]) {
      const left = await grep(dir, { pattern: "needle", path: "notes.txt", include: "*.js" }, options)
      expect(matchesOf(left)).toEqual([])
      expect(left.data.warnings).toEqual(["notes.txt does not match include '*.js', so it was not searched; leave include out to search it"])
      expect(left.text).toContain("Warnings: notes.txt does not match include '*.js', so it was not searched")
      const kept = await grep(dir, { pattern: "needle", path: "notes.txt", include: "*.txt" }, options)
      expect(keys(kept)).toEqual(["notes.txt:1"])
      expect(kept.data.warnings).toBeUndefined()
    }
  })

  test("include: any depth without a slash, anchored with one, braces, POSIX classes", async () => {
    for (const options of [{}, BUILTIN]) {
      const files = async (include: string) =>
        [...new Set(matchesOf(await grep(root, { pattern: "user", include, max_matches: 500 }, options)).map((m) => m.file))].sort()
      expect(await files("*.py")).toEqual(["src/util.py"])
      expect(await files("src/**/*.{py,go}")).toEqual(["src/deep/nested/x.go", "src/util.py"])
      expect(await files("src/*.txt")).toEqual(["src/bom.txt", "src/crlf.txt", "src/no-newline.txt", "src/utf16.txt"])
      expect(await files("[[:alpha:]]*.yml")).toEqual([".hidden/config.yml"])
      expect(await files("*.nothing")).toEqual([])
    }
  })

  test("an explicit path inside an ignored folder is searched", async () => {
    for (const options of [{}, BUILTIN]) {
      expect(keys(await grep(root, { pattern: "user", path: "node_modules/pkg" }, options))).toEqual(["node_modules/pkg/index.js:1"])
    }
  })

  test("CRLF lines are shown without the carriage return; a last line without newline counts", async () => {
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "user", path: "src", include: "*.txt", case_sensitive: true }, options)
      const texts = matchesOf(e).map((m) => `${m.file}:${m.line}:${m.text}`).sort()
      expect(texts).toEqual(["src/bom.txt:1:user with bom", "src/crlf.txt:1:user", "src/no-newline.txt:1:last user", "src/utf16.txt:2:the user here"])
    }
  })
})

describe("grep: ignore files end where git ends them (both engines, and glob agrees)", () => {
  const home = gitHome()
  const filesOf = async (root: string, params: Record<string, unknown>, options: CallOptions = {}) =>
    ((await grep(root, { pattern: "needle", output_mode: "files_with_matches", max_matches: 500, ...params }, options)).data.files as Array<string>).sort()
  const globbed = async (root: string, path = ".") =>
    ((await callTool(root, "glob", { pattern: "**/*.{log,tmp,txt}", path, limit: 200 })).envelope.data.paths as Array<string>).sort()
  const rgPlain = (cwd: string) =>
    execFileSync(rgPath, ["--no-config", "--hidden", "--no-ignore-global", "-l", "needle"], { cwd, encoding: "utf8" })
      .split("\n")
      .filter((l) => l !== "")
      .sort()

  test("a nested repository is not under its parent's .gitignore (rg run with --no-require-git put it there)", async () => {
    const root = gitRepo(home, { ".gitignore": "*.tmp\n", "plain/c.tmp": "needle\n", "nested/a.tmp": "needle\n", "nested/sub/b.tmp": "needle\n", "nested/sub/.gitignore": "ok.txt\n", "nested/sub/ok.txt": "needle\n", "nested/ok.txt": "needle\n" })
    git(join(root, "nested"), home, ["init", "-q"])
    const expected = ["nested/a.tmp", "nested/ok.txt", "nested/sub/b.tmp"]
    expect(rgPlain(root)).toEqual(expected)
    for (const options of [{}, BUILTIN]) expect(await filesOf(root, {}, options)).toEqual(expected)
    expect(await globbed(root)).toEqual(expected)
  })

  test("a repository inside a folder whose .gitignore would hide its files: that .gitignore does not apply", async () => {
    const outer = gitRepo(home, { ".gitignore": "*.log\n" })
    const root = join(outer, "proj")
    writeTree(root, { "app.log": "needle\n", "src/a.txt": "needle\n" })
    git(root, home, ["init", "-q"])
    const expected = ["app.log", "src/a.txt"]
    expect(rgPlain(root)).toEqual(expected)
    for (const options of [{}, BUILTIN]) expect(await filesOf(root, {}, options)).toEqual(expected)
    expect(await globbed(root)).toEqual(expected)
  })

  test("a .ignore above the repository (a user's ~/.ignore) applies to grep, glob and list, as ripgrep reads it; a .gitignore there does not", async () => {
    const outer = tempDir()
    writeFileSync(join(outer, ".ignore"), "*.gen\n")
    writeFileSync(join(outer, ".gitignore"), "*.txt\n")
    const root = join(outer, "proj")
    writeTree(root, { "a.gen": "needle\n", "b.txt": "needle\n" })
    git(root, home, ["init", "-q"])
    expect(rgPlain(root)).toEqual(["b.txt"])
    for (const options of [{}, BUILTIN]) expect(await filesOf(root, {}, options)).toEqual(["b.txt"])
    expect(((await callTool(root, "glob", { pattern: "*" })).envelope.data.paths as Array<string>).sort()).toEqual(["b.txt"])
    const listed = (await callTool(root, "list", {})).envelope.data.entries as Array<{ name: string }>
    expect(listed.map((e) => e.name)).toEqual(["b.txt"])
  })

  test("a project that is no repository: its own .gitignore files apply, also to a search of a subfolder; none above the root", async () => {
    const outer = tempDir()
    writeFileSync(join(outer, ".gitignore"), "*.log\n")
    const root = join(outer, "proj")
    writeTree(root, { "anvil.json": "{}\n", ".gitignore": "b.log\n", "a.log": "needle\n", "sub/b.log": "needle\n", "sub/deeper/c.log": "needle\n", "sub/keep.txt": "needle\n" })
    for (const options of [{}, BUILTIN]) {
      expect(await filesOf(root, {}, options)).toEqual(["a.log", "sub/deeper/c.log", "sub/keep.txt"])
      expect(await filesOf(root, { path: "sub" }, options)).toEqual(["sub/deeper/c.log", "sub/keep.txt"])
      const content = await grep(root, { pattern: "needle", path: "sub" }, options)
      expect([content.data.total_matches, content.data.total_files]).toEqual([2, 2])
    }
    expect(await globbed(root)).toEqual(["a.log", "sub/deeper/c.log", "sub/keep.txt"])
    expect(await globbed(root, "sub")).toEqual(["sub/deeper/c.log", "sub/keep.txt"])
  })
})

describe("grep: file names that are not UTF-8", () => {
  test("a match in such a file (or folder) is shown under its name quoted as git quotes it, both engines, in every mode", async () => {
    const root = project()
    writeFileSync(Buffer.from(join(root, "caf\xe9.txt"), "latin1"), "hello there\n")
    mkdirSync(Buffer.from(join(root, "d\xff"), "latin1"))
    writeFileSync(Buffer.concat([Buffer.from(join(root, "d")), Buffer.from([0xff]), Buffer.from("/x.txt")]), "hello deep\n")
    writeFileSync(join(root, "ok.txt"), "hello\n")
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "hello" }, options)
      expect(e.data.total_matches).toBe(3)
      expect(matchesOf(e).map((m) => `${m.file}:${m.text}`).sort()).toEqual(['"caf\\351.txt":hello there', '"d\\377/x.txt":hello deep', "ok.txt:hello"])
      const files = await grep(root, { pattern: "hello", output_mode: "files_with_matches" }, options)
      expect((files.data.files as Array<string>).sort()).toEqual(['"caf\\351.txt"', '"d\\377/x.txt"', "ok.txt"])
      const counts = await grep(root, { pattern: "hello", output_mode: "count" }, options)
      expect((counts.data.counts as Array<{ file: string }>).map((c) => c.file).sort()).toEqual(['"caf\\351.txt"', '"d\\377/x.txt"', "ok.txt"])
    }
    // list gives such a file its real size (it has one), not 0
    const listed = (await callTool(root, "list", {})).envelope.data.entries as Array<{ name: string; size: number }>
    expect(listed.find((x) => x.name === '"caf\\351.txt"')?.size).toBe(12)
  })
})

describe("grep on a real repository: this one", () => {
  test.each([["Effect\\.gen\\b"], ["TODO|FIXME"], ["\\bexport\\s+const\\s+\\w+Tool\\b"]])("/%s/: per-file counts as rg's, both engines", async (pattern) => {
    const repo = join(import.meta.dir, "..", "..")
    const counts = (e: { data: Record<string, unknown> }) =>
      Object.fromEntries(((e.data.counts ?? []) as Array<{ file: string; count: number }>).map((c) => [c.file, c.count]))
    const direct = () => {
      const byFile: Record<string, number> = {}
      for (const key of rgDirect(repo, pattern, false)) {
        const file = key.slice(0, key.lastIndexOf(":"))
        byFile[file] = (byFile[file] ?? 0) + 1
      }
      return byFile
    }
    const before = direct()
    const viaRg = counts(await grep(repo, { pattern, output_mode: "count", max_matches: 2000 }))
    const viaBuiltin = counts(await grep(repo, { pattern, output_mode: "count", max_matches: 2000 }, BUILTIN))
    const after = direct()
    // Others may be editing this checkout: files whose count changed meanwhile are not judged.
    const stable = Object.keys(after).filter((f) => before[f] === after[f])
    for (const f of stable) {
      expect(viaRg[f]).toBe(after[f])
      expect(viaBuiltin[f]).toBe(after[f])
    }
    for (const f of Object.keys(viaRg)) expect(f in before || f in after).toBe(true)
    for (const f of Object.keys(viaBuiltin)) expect(f in before || f in after).toBe(true)
    expect(stable.length).toBeGreaterThan(0)
  }, 60_000)
})

describe("grep: output and behaviour", () => {
  test("content mode: text layout, case-insensitive by default, case_sensitive exact", async () => {
    const root = project({ "src/a.py": "x\nclass Foo:\n  pass\n", "src/b.py": "class FooBar:\nclass foo:\n" })
    utimesSync(join(root, "src/a.py"), 2_000_000, 2_000_000)
    utimesSync(join(root, "src/b.py"), 1_000_000, 1_000_000)
    const e = await grep(root, { pattern: "class\\s+Foo", path: "src" })
    expect(e.status).toBe("success")
    expect(e.text).toBe(
      "# Grep: class\\s+Foo\n\nPath: src\n3 matches in 2 files, newest files first.\n\n" +
        "src/a.py\n  2: class Foo:\nsrc/b.py\n  1: class FooBar:\n  2: class foo:",
    )
    expect(matchesOf(e)[0]).toEqual({ file: "src/a.py", line: 2, text: "class Foo:" })
    expect(e.data.total_matches).toBe(3)
    expect(e.data.total_files).toBe(2)
    expect(e.data.truncated).toBe(false)
    expect(e.data.total_matches_is_lower_bound).toBe(false)
    const exact = await grep(root, { pattern: "class\\s+Foo", path: "src", case_sensitive: true })
    expect(keys(exact)).toEqual(["src/a.py:2", "src/b.py:1"])
  })

  test("matches ordered by file modification time, newest first", async () => {
    for (const options of [{}, BUILTIN]) {
      const root = project({ "a.txt": "hit\n", "b.txt": "hit\nhit\n", "c.txt": "hit\n" })
      utimesSync(join(root, "a.txt"), 3_000_000, 3_000_000)
      utimesSync(join(root, "b.txt"), 1_000_000, 1_000_000)
      utimesSync(join(root, "c.txt"), 2_000_000, 2_000_000)
      const e = await grep(root, { pattern: "hit" }, options)
      expect(matchesOf(e).map((m) => `${m.file}:${m.line}`)).toEqual(["a.txt:1", "c.txt:1", "b.txt:1", "b.txt:2"])
    }
  })

  test("files_with_matches and count modes", async () => {
    for (const options of [{}, BUILTIN]) {
      const root = project({ "a.ts": "foo\nfoo\nbar\n", "b.ts": "foo\n", "c.ts": "bar\n" })
      utimesSync(join(root, "a.ts"), 2_000_000, 2_000_000)
      utimesSync(join(root, "b.ts"), 1_000_000, 1_000_000)
      const files = await grep(root, { pattern: "foo", output_mode: "files_with_matches" }, options)
      expect(files.data.files).toEqual(["a.ts", "b.ts"])
      expect(files.data.total_files).toBe(2)
      expect(files.data.total_matches).toBe(3)
      expect(files.text).toContain("\na.ts (2)\n")
      const counts = await grep(root, { pattern: "foo", output_mode: "count" }, options)
      expect(counts.data.counts).toEqual([
        { file: "a.ts", count: 2 },
        { file: "b.ts", count: 1 },
      ])
      expect(counts.text).toContain("\na.ts: 2\nb.ts: 1")
    }
  })

  test("many matching files: the newest max_matches in order (ties by path) and the totals of all, in every mode and engine", async () => {
    // More files than rg's results are stat'ed in at a time, in folders, with many equal times.
    const tree: Record<string, string> = {}
    const time = new Map<string, number>()
    for (let i = 0; i < 700; i++) {
      const file = `d${i % 7}/f${i}.ts`
      tree[file] = i % 3 === 0 ? "hit\nhit\n" : "hit\n"
      time.set(file, 1_000_000 + ((i * 37) % 50) * 1000)
    }
    const root = project(tree)
    for (const [file, t] of time) utimesSync(join(root, file), t, t)
    const order = [...time.keys()].sort((a, b) => time.get(b)! - time.get(a)! || (a < b ? -1 : 1))
    const lines = (file: string) => (tree[file] === "hit\nhit\n" ? 2 : 1)
    const totalLines = order.reduce((n, f) => n + lines(f), 0)
    for (const options of [{}, BUILTIN]) {
      const files = await grep(root, { pattern: "hit", output_mode: "files_with_matches", max_matches: 25 }, options)
      expect(files.data.files).toEqual(order.slice(0, 25))
      expect(files.data.total_files).toBe(700)
      expect(files.data.total_matches).toBe(totalLines)
      expect(files.text).toContain(`700 files (${totalLines} matching lines), newest files first; shown: 25.`)
      // What the text leaves out is in the saved list, every file in the same order.
      const saved = readFileSync(join(root, files.data.full_output_path as string), "utf8").trim().split("\n")
      expect(saved.map((l) => l.replace(/ \(\d+\)$/, ""))).toEqual(order)
      // The saved JSON lists every file with its count of matching lines.
      const spilled = JSON.parse(readFileSync(join(root, (files.data.full_output_path as string).replace(/\.output\.txt$/, ".json")), "utf8"))
      expect(spilled.data.counts).toEqual(order.map((file) => ({ file, count: lines(file) })))
      expect(files.text).toContain(`All 700 files (${totalLines} matching lines): ${files.data.full_output_path}`)
      const counts = await grep(root, { pattern: "hit", output_mode: "count", max_matches: 10 }, options)
      expect(counts.data.counts).toEqual(order.slice(0, 10).map((file) => ({ file, count: lines(file) })))
      const content = await grep(root, { pattern: "hit", max_matches: 30 }, options)
      const expected = order.flatMap((file) => Array.from({ length: lines(file) }, (_, i) => `${file}:${i + 1}`)).slice(0, 30)
      expect(matchesOf(content).map((m) => `${m.file}:${m.line}`)).toEqual(expected)
      expect(content.data.total_matches).toBe(totalLines)
      expect(content.data.total_files).toBe(700)
    }
  })

  test("before/after context lines", async () => {
    const body = Array.from({ length: 12 }, (_, i) => `line ${i + 1}${i === 4 || i === 6 ? " hit" : ""}`).join("\n") + "\n"
    for (const options of [{}, BUILTIN]) {
      const root = project({ "f.txt": body })
      const e = await grep(root, { pattern: "hit", before_context: 2, after_context: 1 }, options)
      const [first, second] = matchesOf(e) as Array<Match & { before_context: Array<{ line: number; text: string }>; after_context: Array<{ line: number; text: string }> }>
      expect(first!.line).toBe(5)
      expect(first!.before_context.map((l) => l.line)).toEqual([3, 4])
      expect(first!.after_context).toEqual([{ line: 6, text: "line 6" }])
      expect(second!.before_context.map((l) => l.line)).toEqual([5, 6])
      expect(second!.after_context.map((l) => l.line)).toEqual([8])
      expect(e.text).toContain("f.txt\n  3- line 3\n  4- line 4\n  5: line 5 hit\n  6- line 6\n  7: line 7 hit\n  8- line 8")
      const both = await grep(root, { pattern: "hit", context: 1 }, options)
      expect((matchesOf(both)[0] as unknown as { before_context: Array<unknown> }).before_context).toHaveLength(1)
      // A match inside the previous match's context is shown as a match, and counted as shown (nothing is cut).
      const wide = await grep(root, { pattern: "hit", context: 2 }, options)
      expect(wide.text).toContain("f.txt\n  3- line 3\n  4- line 4\n  5: line 5 hit\n  6- line 6\n  7: line 7 hit\n  8- line 8\n  9- line 9")
      expect(wide.text).toContain("2 matches in 1 file, newest files first.")
      expect(wide.data.full_output_path).toBeUndefined()
      // Past max_matches a later match is only context, as data.matches holds only the first.
      const one = await grep(root, { pattern: "hit", context: 2, max_matches: 1 }, options)
      expect(matchesOf(one).map((m) => m.line)).toEqual([5])
      expect(one.text).toContain("  7- line 7 hit")
    }
  })

  test("context past tools.grep.max_context (20) is capped, and the envelope says so", async () => {
    const body = Array.from({ length: 80 }, (_, i) => `line ${i + 1}${i === 40 ? " hit" : ""}`).join("\n") + "\n"
    const root = project({ "f.txt": body })
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "hit", context: 50 }, options)
      const [m] = matchesOf(e) as unknown as Array<{ before_context: Array<unknown>; after_context: Array<unknown> }>
      expect(m!.before_context).toHaveLength(20)
      expect(m!.after_context).toHaveLength(20)
      expect(e.data.context_capped).toEqual({ before_context: 20, after_context: 20, max_context: 20 })
      expect(e.text).toContain("(context 50 capped at 20 lines (tools.grep.max_context); Read a match's surroundings for more.)")
      const sides = await grep(root, { pattern: "hit", before_context: 30, after_context: 2 }, options)
      expect(sides.data.context_capped).toEqual({ before_context: 20, after_context: 2, max_context: 20 })
      expect(sides.text).toContain("(before_context 30, after_context 2 capped at 20 lines")
      // Within the cap nothing is said; a raised cap is honoured.
      expect((await grep(root, { pattern: "hit", context: 20 }, options)).data.context_capped).toBeUndefined()
      const raised = await grep(root, { pattern: "hit", context: 50 }, { configOverrides: { tools: { grep: { max_context: 100, ...("configOverrides" in options ? { engine: "builtin" } : {}) } } } })
      expect(raised.data.context_capped).toBeUndefined()
      expect((matchesOf(raised)[0] as unknown as { before_context: Array<unknown> }).before_context).toHaveLength(40)
    }
  })

  test("overlapping context windows, large files read in pieces: both engines return the same objects", async () => {
    const small = Array.from({ length: 30 }, (_, i) => (i + 1 === 5 || i + 1 === 6 || i + 1 === 8 || i + 1 === 20 ? `hit ${i + 1}` : `line ${i + 1}`)).join("\n") + "\n"
    // ~1.5 MB, lines crossing the 256 KB read boundaries, CRLF in places, no final newline.
    const big: Array<string> = []
    for (let i = 1; i <= 40_000; i++) big.push(i % 9_973 === 0 ? `needle ${i}${i % 2 ? "\r" : ""}` : `filler line number ${i} ${"x".repeat(i % 17)}`)
    const root = project({ "small.txt": small, "big.txt": big.join("\n") + "\nlast needle" })
    for (const [pattern, extra] of [
      ["hit", { before_context: 2, after_context: 3 }],
      ["needle", { context: 1 }],
      ["needle", {}],
      ["needle$", {}],
    ] as const) {
      const a = await grep(root, { pattern, ...extra })
      const b = await grep(root, { pattern, ...extra }, BUILTIN)
      expect(matchesOf(b)).toEqual(matchesOf(a))
      expect(b.data.total_matches).toBe(a.data.total_matches)
      expect(matchesOf(a).length).toBeGreaterThan(0)
    }
    const hits = matchesOf(await grep(root, { pattern: "hit", before_context: 2, after_context: 3 }, BUILTIN)) as unknown as Array<{
      line: number
      before_context: Array<{ line: number }>
      after_context: Array<{ line: number }>
    }>
    expect(hits.map((h) => [h.line, h.before_context.map((l) => l.line), h.after_context.map((l) => l.line)])).toEqual([
      [5, [3, 4], [6, 7, 8]],
      [6, [4, 5], [7, 8, 9]],
      [8, [6, 7], [9, 10, 11]],
      [20, [18, 19], [21, 22, 23]],
    ])
    const last = matchesOf(await grep(root, { pattern: "last needle" }, BUILTIN))
    expect(last).toEqual([{ file: "big.txt", line: 40_001, text: "last needle" }])
  })

  test("max_matches: default 200, truncation is partial with the total and next steps", async () => {
    const root = project({ "big.txt": "hit\n".repeat(250), "small.txt": "hit\n" })
    utimesSync(join(root, "big.txt"), 2_000_000, 2_000_000)
    utimesSync(join(root, "small.txt"), 1_000_000, 1_000_000)
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "hit" }, options)
      expect(matchesOf(e)).toHaveLength(200)
      expect(e.status).toBe("partial")
      expect(e.data.truncated).toBe(true)
      expect(e.data.total_matches).toBe(251)
      // The model reads the first 50 grouped by file, the total, and where all of them are.
      expect(e.text).toContain("251 matches in 2 files, newest files first; shown: 50 in 1 file.\n")
      expect(e.text).toContain("\n\nbig.txt\n  1: hit\n")
      expect(e.text).not.toContain("  51: hit")
      expect(e.text).toContain('Grep(pattern="hit", path=".", output_mode="files_with_matches")')
      const saved = e.data.full_output_path as string
      expect(e.text).toContain(`All 251 matches in 2 files: ${saved}`)
      // The Read asks for exactly the lines after the ones shown.
      expect(e.text).toContain(`Read(path="${saved}", offset=51, limit=153)`)
      // Each file says how many of its lines match; lines past the 200 kept of a file are counted, with how to see them.
      expect(readFileSync(join(root, saved), "utf8")).toBe(
        [
          "big.txt (250 matches)",
          ...Array.from({ length: 200 }, (_, i) => `  ${i + 1}: hit`),
          '  … 50 more matching lines not kept here: Grep with path "big.txt" saves them all',
          "small.txt (1 match)",
          "  1: hit",
          "",
        ].join("\n"),
      )
      // And it does: the one file searched keeps every matching line in its saved list.
      const one = await grep(root, { pattern: "hit", path: "big.txt" }, options)
      expect(one.text).toContain("250 matches in 1 file")
      expect(readFileSync(join(root, one.data.full_output_path as string), "utf8")).toBe(
        ["big.txt (250 matches)", ...Array.from({ length: 250 }, (_, i) => `  ${i + 1}: hit`), ""].join("\n"),
      )
      const spilled = JSON.parse(readFileSync(join(root, saved.replace(/\.output\.txt$/, ".json")), "utf8"))
      expect(spilled.data.counts).toEqual([{ file: "big.txt", count: 250 }, { file: "small.txt", count: 1 }])
      // A number asked for is shown whole.
      const asked = await grep(root, { pattern: "hit", max_matches: 120 }, options)
      expect(asked.text).toContain("  120: hit")
      expect(asked.text).toContain("shown: 120 in 1 file")
      const few = await grep(root, { pattern: "hit", max_matches: 3 }, options)
      expect(matchesOf(few)).toHaveLength(3)
      const files = await grep(root, { pattern: "hit", output_mode: "files_with_matches", max_matches: 1 }, options)
      expect(files.data.files).toEqual(["big.txt"])
      expect(files.status).toBe("partial")
    }
  })

  test("a stop before the end makes the totals a lower bound", async () => {
    const tree: Record<string, string> = {}
    for (let i = 0; i < 30; i++) tree[`f${i}.txt`] = "hit\nhit\n"
    const root = project(tree)
    for (const engine of ["auto", "builtin"]) {
      const e = await grep(root, { pattern: "hit" }, { configOverrides: { tools: { grep: { engine, max_stored_lines: 10 } } } })
      expect(e.status).toBe("partial")
      expect(e.data.total_matches_is_lower_bound).toBe(true)
      expect(e.data.aborted_reason).toBe("collect_limit")
      expect(e.text).toContain("At least ")
      expect(e.data.total_matches as number).toBeGreaterThanOrEqual(10)
      expect(e.data.total_matches as number).toBeLessThan(60)
    }
  })

  test("the built-in search's entries breaker: what the walk found is searched, totals a lower bound", async () => {
    const tree: Record<string, string> = {}
    for (let d = 0; d < 5; d++) for (let f = 0; f < 10; f++) tree[`d${d}/f${f}.txt`] = "hit\n"
    const root = project(tree)
    const e = await grep(root, { pattern: "hit" }, { configOverrides: { tools: { grep: { engine: "builtin", max_entries: 20 } } } })
    expect(e.status).toBe("partial")
    expect(e.data.aborted_reason).toBe("max_entries")
    expect(e.data.total_matches_is_lower_bound).toBe(true)
    expect(e.data.total_matches).toBe(14)
    expect(e.text).toContain("stopped after visiting 20 entries")
  })

  test("very long lines are cut around the match with a marker", async () => {
    const line = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`
    for (const options of [{}, BUILTIN]) {
      const root = project({ "min.js": `${line}\nshort NEEDLE\n` })
      const e = await grep(root, { pattern: "needle" }, options)
      const [long, short] = matchesOf(e)
      expect(long!.text).toContain("NEEDLE")
      expect(long!.text.startsWith("…")).toBe(true)
      // The characters shown, the whole length, and the Read that continues the line after them.
      const marker = long!.text.match(/\[line cut: characters (\d+)-(\d+) of 10006; Read\(offset=0, limit=1, column=(\d+)\) continues it\]$/)
      expect(marker).not.toBeNull()
      expect(marker![3]).toBe(marker![2])
      const shown = long!.text.slice(1, long!.text.indexOf("… [line cut"))
      expect(line.slice(Number(marker![1]) - 1, Number(marker![2]))).toBe(shown)
      expect(long!.text.length).toBeLessThan(600)
      expect(short!.text).toBe("short NEEDLE")
    }
    // A match at the end of a long line: the window ends the line, so the Read names its start, not a column past it.
    for (const options of [{}, BUILTIN]) {
      const root = project({ "end.txt": `${"é".repeat(600)}NEEDLE\n` })
      const [atEnd] = matchesOf(await grep(root, { pattern: "needle" }, options))
      expect(atEnd!.text).toMatch(/NEEDLE \[line cut: characters 107-606 of 606; Read\(offset=0, limit=1\) shows it from the start\]$/)
    }
  })

  test("binary files (a NUL in the first 64 KiB) are skipped; a later NUL ends the search there, as in ripgrep; naming a binary one is BINARY_FILE", async () => {
    const late = Buffer.concat([Buffer.from("needle early\n"), Buffer.from("x".repeat(100_000) + "\n"), Buffer.from([0]), Buffer.from("\n")])
    const later = Buffer.concat([Buffer.from("needle early\n"), Buffer.from(("y".repeat(99) + "\n").repeat(7_000)), Buffer.from([0]), Buffer.from("\n")])
    for (const options of [{}, BUILTIN]) {
      const root = project({ "early.bin": Buffer.from("needle\0\n"), "late.bin": late, "later.bin": later, "text.txt": "needle\n" })
      const found = await grep(root, { pattern: "needle" }, options)
      expect(keys(found)).toEqual(["late.bin:1", "later.bin:1", "text.txt:1"])
      expect((found.data.warnings as Array<string>).sort()).toEqual([
        "late.bin: searched up to a NUL byte at offset 100014 (binary data); matches after it are not shown",
        "later.bin: searched up to a NUL byte at offset 700013 (binary data); matches after it are not shown",
      ])
      // rg --count leaves such a file out; both engines answer as it does.
      expect((await grep(root, { pattern: "needle", output_mode: "count" }, options)).data.counts).toEqual([{ file: "text.txt", count: 1 }])
      const named = await grep(root, { pattern: "needle", path: "early.bin" }, options)
      expect(named.error?.code).toBe("BINARY_FILE")
    }
  })

  test("a file as path", async () => {
    for (const options of [{}, BUILTIN]) {
      const root = project({ "src/a.ts": "one\ntwo needle\n", "src/b.ts": "needle\n" })
      const e = await grep(root, { pattern: "needle", path: "src/a.ts" }, options)
      expect(keys(e)).toEqual(["src/a.ts:2"])
      expect(e.context.path_resolved).toBe("src/a.ts")
      expect(matchesOf(await grep(root, { pattern: "needle", path: "src/a.ts", include: "*.py" }, options))).toEqual([])
    }
  })

  test("a FIFO as path is refused, not read", async () => {
    const root = project({ "a.txt": "x\n" })
    execFileSync("mkfifo", [join(root, "pipe")])
    const e = await grep(root, { pattern: "x", path: "pipe" })
    expect(e.error?.code).toBe("INVALID_PARAM")
    expect(e.error?.field_errors?.[0]?.field).toBe("path")
  })

  test("no match is a success that says what was searched", async () => {
    const root = project({ "a.txt": "x\n" })
    const e = await grep(root, { pattern: "absent" })
    expect(e.status).toBe("success")
    expect(e.text).toContain("No matches for 'absent' (case-insensitive).")
    expect(e.text).toContain("hidden files included")
  })

  test("path errors: NOT_FOUND, .git refused, sandbox escapes ACCESS_DENIED", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "s.txt"), "needle\n")
    const home = gitHome()
    const root = gitRepo(home, { "a.txt": "needle\n", "out": { link: outside } })
    expect((await grep(root, { pattern: "x", path: "missing" })).error?.code).toBe("NOT_FOUND")
    const dotgit = await grep(root, { pattern: "x", path: ".git" })
    expect(dotgit.error?.code).toBe("INVALID_PARAM")
    expect(dotgit.error?.field_errors?.[0]?.field).toBe("path")
    expect((await grep(root, { pattern: "x", path: ".." })).error?.code).toBe("ACCESS_DENIED")
    expect((await grep(root, { pattern: "x", path: outside })).error?.code).toBe("ACCESS_DENIED")
    expect((await grep(root, { pattern: "x", path: "out" })).error?.code).toBe("ACCESS_DENIED")
    // A link out of the sandbox is not followed by the search either.
    expect(keys(await grep(root, { pattern: "needle" }))).toEqual(["a.txt:1"])
  })

  test("reached by its alias search_code, with the alternative parameter names", async () => {
    const root = project({ "a.py": "class Foo:\n" })
    const e = (await callTool(root, "search_code", { pattern: "foo", head_limit: 5, glob: "*.py" })).envelope
    expect(keys(e)).toEqual(["a.py:1"])
  })
})

describe("grep: invalid patterns are INVALID_PARAM with the reason, on both engines", () => {
  test.each([
    ["(", "unclosed group"],
    ["[a", "unclosed character class"],
    ["a{2,1}", "invalid repetition"],
    ["(?<=a)b", "look-around"],
    ["(?=a)", "look-around"],
    ["(a)\\1", "backreferences are not supported"],
    ["*a", "repetition operator missing expression"],
    ["a\\nb", "contains a line break (\\n): grep matches within one line"],
    ["\\q", "unrecognized escape"],
  ])("%s", async (pattern, reason) => {
    const root = project({ "a.txt": "a\n" })
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern }, options)
      expect(e.status).toBe("error")
      expect(e.error?.code).toBe("INVALID_PARAM")
      expect(e.error?.field_errors?.[0]?.field).toBe("pattern")
      expect(e.error?.field_errors?.[0]?.message).toContain(reason)
      expect(e.text).toContain("Grep(pattern=")
      // ripgrep's advice to use its own flags (--pcre2, --multiline) is not passed on: the tool takes neither.
      expect(e.error?.message).not.toContain("Consider enabling")
    }
  })
})

describe("grep: a pattern with a line break says grep matches within a line and offers its first line with context", () => {
  test.each([
    ["foo\\nbar", "foo", 1],
    ["foo\nbar\nbaz", "foo", 2],
    ["(foo\\nbar)", "<one line of the pattern>", 1],
  ])("%j", async (pattern, first, after) => {
    const root = project({ "a.txt": "foo\nbar\n" })
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern, include: "*.txt" }, options)
      expect(e.error?.code).toBe("INVALID_PARAM")
      expect(e.error?.message).toContain("grep matches one line at a time")
      expect(e.text).toContain(`Grep(pattern="${first}", include="*.txt", after_context=${after})`)
    }
  })
})

describe("grep: ripgrep first, the built-in search when none can run", () => {
  test("rg is used when found; the fallback is partial with data.fallback and says why", async () => {
    const root = project({ "a.txt": "needle\n" })
    const rg = await grep(root, { pattern: "needle" })
    expect(rg.status).toBe("success")
    expect(rg.data.engine).toBe("rg")
    expect(rg.data.fallback).toBeUndefined()

    const configured = await grep(root, { pattern: "needle" }, BUILTIN)
    expect(configured.status).toBe("partial")
    expect(configured.data.fallback).toBe("builtin")
    expect(configured.text).toContain("used the slower built-in search instead")
    expect(keys(configured)).toEqual(["a.txt:1"])

    const missing = await grep(root, { pattern: "needle" }, { configOverrides: { tools: { grep: { rg_path: join(root, "no-such-rg") } } } })
    expect(missing.status).toBe("partial")
    expect(missing.data.fallback).toBe("builtin")
    expect(missing.data.fallback_reason).toContain("ripgrep could not be started")
    expect(keys(missing)).toEqual(["a.txt:1"])

    const env = await grep(root, { pattern: "needle" }, { env: { ANVIL_RG_PATH: "/nonexistent/rg" } })
    expect(env.data.fallback).toBe("builtin")
    expect(keys(env)).toEqual(["a.txt:1"])
  })

  test("an rg on PATH comes first", async () => {
    const bin = tempDir("anvil-path-rg-")
    const fake = join(bin, "rg")
    const match = `{"type":"match","data":{"path":{"text":"./a.txt"},"lines":{"text":"from the PATH rg\\n"},"line_number":7,"submatches":[{"match":{"text":"PATH"},"start":9,"end":13}]}}`
    writeFileSync(
      fake,
      `#!/bin/sh\nprintf '%s\\n' '{"type":"begin","data":{"path":{"text":"./a.txt"}}}' '${match}' '{"type":"end","data":{"path":{"text":"./a.txt"},"binary_offset":null,"stats":{"matched_lines":1}}}'\n`,
    )
    chmodSync(fake, 0o755)
    // The file holds the fake's line too: hits are only shown when the file still holds what they show.
    const root = project({ "a.txt": "needle\nfrom the PATH rg\n" })
    const e = await grep(root, { pattern: "needle" }, { env: { PATH: `${bin}:/usr/bin:/bin` } })
    expect(e.data.engine).toBe("rg")
    expect(matchesOf(e)).toEqual([{ file: "a.txt", line: 7, text: "from the PATH rg" }])
  })

  test("rg's count output is read whole: a last record without a newline, a path with spaces and non-ASCII", async () => {
    const bin = tempDir("anvil-count-rg-")
    const fake = join(bin, "rg")
    // `path\0count\n` records as rg --count --null writes them, the last one unterminated.
    writeFileSync(fake, `#!/bin/sh\nprintf './a b.txt\\0002\\n./é/ü.txt\\0001\\n./c.txt\\0003'\n`)
    chmodSync(fake, 0o755)
    const root = project({ "a b.txt": "x\n", "é/ü.txt": "x\n", "c.txt": "x\n" })
    utimesSync(join(root, "a b.txt"), 3_000_000, 3_000_000)
    utimesSync(join(root, "é/ü.txt"), 2_000_000, 2_000_000)
    utimesSync(join(root, "c.txt"), 1_000_000, 1_000_000)
    const e = await grep(root, { pattern: "x", output_mode: "count" }, { configOverrides: { tools: { grep: { rg_path: fake } } } })
    expect(e.data.engine).toBe("rg")
    expect(e.data.counts).toEqual([
      { file: "a b.txt", count: 2 },
      { file: "é/ü.txt", count: 1 },
      { file: "c.txt", count: 3 },
    ])
    expect(e.data.total_matches).toBe(6)
  })

  test("a pattern the built-in search cannot run faithfully is refused, not guessed", async () => {
    const root = project({ "a.txt": "x\n" })
    const e = await grep(root, { pattern: "\\p{Age=3.0}" }, BUILTIN)
    expect(e.error?.code).toBe("INVALID_PARAM")
    expect(e.text).toContain("cannot run this construct faithfully")
  })

  test("timeout: rg is stopped (killed) and what it found is returned as partial; nothing found is TIMEOUT", async () => {
    const dir = tempDir("anvil-fake-rg-")
    const pidFile = join(dir, "pid")
    const fake = (name: string, output: string) => {
      const file = join(dir, name)
      writeFileSync(file, `#!/bin/sh\necho $$ > '${pidFile}'\nprintf '%s\\n' ${output}\nexec sleep 30\n`)
      chmodSync(file, 0o755)
      return file
    }
    const begin = `'{"type":"begin","data":{"path":{"text":"./a.txt"}}}'`
    const match = `'{"type":"match","data":{"path":{"text":"./a.txt"},"lines":{"text":"needle here\\n"},"line_number":3,"absolute_offset":0,"submatches":[{"match":{"text":"needle"},"start":0,"end":6}]}}'`
    const root = project({ "a.txt": "x\nx\nneedle here\n" })
    const slow = fake("rg-slow", `${begin} ${match}`)
    const options = (rg: string): CallOptions => ({ configOverrides: { tools: { grep: { rg_path: rg, timeout_ms: 400 } } } })
    const e = await grep(root, { pattern: "needle" }, options(slow))
    expect(e.status).toBe("partial")
    expect(e.data.aborted_reason).toBe("timeout")
    expect(e.data.total_matches_is_lower_bound).toBe(true)
    expect(keys(e)).toEqual(["a.txt:3"])
    expect(e.text).toContain("stopped at the 400 ms timeout")
    const pid = Number(readFileSync(pidFile, "utf8"))
    expect(await gone(pid)).toBe(true)

    const silent = fake("rg-silent", "''")
    const t = await grep(root, { pattern: "needle" }, options(silent))
    expect(t.status).toBe("error")
    expect(t.error?.code).toBe("TIMEOUT")
    expect(t.error?.retryable).toBe(true)
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true)
  })
})

/** Waits (briefly) for a process to be gone. */
const gone = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return true
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return false
}

describe("grep: a malformed include is INVALID_PARAM, on both engines (never a silent fallback)", () => {
  test.each([
    ["[", "unclosed character class"],
    ["*.[ch", "unclosed character class"],
    ["*.{ts,js", "unclosed alternate group"],
    ["a}", "'}' has no matching '{'"],
    ["[z-a].txt", "invalid range"],
    ["*.ts\\", "escapes nothing"],
  ])("%s", async (include, reason) => {
    const root = project({ "a.txt": "a\n" })
    for (const options of [{}, BUILTIN]) {
      const e = await grep(root, { pattern: "a", include }, options)
      expect(e.error?.code).toBe("INVALID_PARAM")
      expect(e.error?.field_errors?.[0]?.field).toBe("include")
      expect(e.error?.field_errors?.[0]?.message).toContain(reason)
    }
  })

  test("escaped brackets and braces, and balanced ones, are fine", async () => {
    const root = project({ "a[1].txt": "a\n", "b{x}.txt": "a\n", "c.ts": "a\n" })
    for (const options of [{}, BUILTIN]) {
      for (const include of ["a\\[1].txt", "b\\{x\\}.txt", "*.{ts,md}", "[a-c]*"]) {
        const e = await grep(root, { pattern: "a", include }, options)
        expect(e.status).not.toBe("error")
        expect(matchesOf(e).length).toBeGreaterThan(0)
      }
    }
  })
})
