import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, symlinkSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { grep, type GrepRequest } from "../../src/search/grep.ts"
import { matchLines } from "../../src/search/grep-report.ts"
import { project, session } from "../support/harness.ts"

const ask = (pattern: string, more: Partial<GrepRequest> = {}): GrepRequest => ({
  pattern,
  path: ".",
  caseSensitive: false,
  mode: "content",
  before: 0,
  after: 0,
  maxMatches: 100,
  engine: "auto",
  rgEnv: { PATH: process.env.PATH ?? "" },
  timeoutMs: 10_000,
  maxStoredLines: 10_000,
  maxEntries: 100_000,
  ignoredDirs: new Set(["node_modules"]),
  ...more,
})

describe("grep (search domain)", () => {
  const root = project({
    "old.ts": "const Alpha = 1\nconst beta = 2\n",
    "new.ts": "// alpha here\nlet x\nlet y\nalpha again\n",
    "notes.md": "alpha in markdown\n",
    "node_modules/dep/a.ts": "alpha hidden\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    "bin.dat": new Uint8Array([0x61, 0x6c, 0x70, 0x68, 0x61, 0, 1]),
  })
  utimesSync(join(root, "old.ts"), new Date(2020, 1, 1), new Date(2020, 1, 1))
  const s = session(root)
  const run = (pattern: string, more: Partial<GrepRequest> = {}) => s.run(grep(ask(pattern, more)))
  const failure = (pattern: string, more: Partial<GrepRequest> = {}) => s.run(Effect.flip(grep(ask(pattern, more))))

  test("ripgrep and the built-in engine find the same lines, newest file first, skipping ignored folders and binaries", async () => {
    const rg = await run("alpha")
    const builtin = await run("alpha", { engine: "builtin" })
    expect(rg.engine).toBe("rg")
    expect(builtin).toMatchObject({ engine: "builtin", fallbackReason: "ripgrep is disabled by configuration (tools.grep.engine: builtin)" })
    for (const r of [rg, builtin]) {
      expect(r.shown).toBe(".")
      expect(r.totalLines).toBe(4)
      expect(r.shownFiles.map((f) => f.display).at(-1)).toBe("old.ts")
      expect(r.shownFiles.map((f) => f.display).sort()).toEqual(["new.ts", "notes.md", "old.ts"])
    }
  })

  test("the include glob and case sensitivity narrow the search; the report cuts and places context", async () => {
    const ts = await run("alpha", { include: "*.ts", caseSensitive: true })
    expect(ts.shownFiles.map((f) => f.display)).toEqual(["new.ts"])
    const withContext = await run("again", { before: 1, after: 0 })
    const { matches, lines } = matchLines(withContext.shownFiles, { maxMatches: 10, before: 1, after: 0, maxLineLength: 500 })
    expect(matches).toEqual([{ file: "new.ts", line: 4, text: "alpha again", before_context: [{ line: 3, text: "let y" }], after_context: [] }])
    expect(lines).toEqual(["new.ts", "  3- let y", "  4: alpha again"])
  })

  test("an include glob with a leading '!' leaves those files out (as ripgrep's --glob), in both engines", async () => {
    for (const engine of ["auto", "builtin"] as const) {
      const notTs = await run("alpha", { include: "!*.ts", engine })
      expect(notTs.shownFiles.map((f) => f.display)).toEqual(["notes.md"])
      expect(notTs.totalLines).toBe(1)
      expect((await run("alpha", { include: "!{*.md,old.*}", engine })).shownFiles.map((f) => f.display)).toEqual(["new.ts"])
      expect((await run("alpha", { path: "new.ts", include: "!*.ts", engine })).shownFiles).toEqual([])
      expect((await run("alpha", { path: "notes.md", include: "!*.ts", engine })).shownFiles.map((f) => f.display)).toEqual(["notes.md"])
    }
    expect(await failure("x", { include: "!" })).toMatchObject({ _tag: "GrepIncludeInvalid" })
    expect(await failure("x", { include: "![z-a]" })).toMatchObject({ _tag: "GrepIncludeInvalid" })
  })

  test("one file given through a symbolic link is named as given, not by the link's target", async () => {
    symlinkSync("notes.md", join(root, "link.md"))
    mkdirSync(join(root, "sub"))
    symlinkSync("../new.ts", join(root, "sub/again.ts"))
    for (const engine of ["auto", "builtin"] as const) {
      expect((await run("markdown", { path: "link.md", engine })).shownFiles.map((f) => f.display)).toEqual(["link.md"])
      expect((await run("again", { path: "sub/again.ts", engine })).shownFiles.map((f) => f.display)).toEqual(["sub/again.ts"])
    }
  })

  test("tagged errors: a bad include, a missing path, .git, a binary file, a bad pattern in either engine", async () => {
    expect(await failure("x", { include: "/abs/*.ts" })).toMatchObject({ _tag: "GrepIncludeInvalid" })
    expect(await failure("x", { path: "nope" })).toMatchObject({ _tag: "GrepPathNotFound", shown: "nope" })
    expect(await failure("x", { path: ".git" })).toMatchObject({ _tag: "GrepInsideGit" })
    expect(await failure("x", { path: "bin.dat" })).toMatchObject({ _tag: "GrepBinaryFile", shown: "bin.dat" })
    expect(await failure("(")).toMatchObject({ _tag: "GrepPatternInvalid", unsupported: false })
    expect(await failure("(", { engine: "builtin" })).toMatchObject({ _tag: "GrepPatternInvalid" })
    expect(await failure("a(?=b)", { engine: "builtin" })).toMatchObject({ _tag: "GrepPatternInvalid" })
  })
})
